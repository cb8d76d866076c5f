import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBroker, stopBroker } from '../../scripts/kafka/broker';
import { applyExampleStacks, exampleModel, exampleUsers } from '../../scripts/kafka/example-stacks';
import { bootstrapServers, terraformRoot } from '../helpers/kafka';
import { prepareTools } from '../helpers/tools';

/**
 * Builds or fetches every tool the tests need (the Confluent client included), then
 * starts a real Kafka broker for the suite (unless KAFKA_BOOTSTRAP_SERVERS points at
 * one), creates the main topics and applies every generated Terraform stack to it (on
 * a broker it was given, with the state of the runs before; see terraformRoot).
 * Any failure here fails the whole run: nothing is skipped.
 */
export default async function globalSetup(): Promise<void> {
  await prepareTools();
  const work = mkdtempSync(path.join(os.tmpdir(), 'krt-test-'));
  process.env.KRT_TEST_WORK_DIR = work;
  const model = await exampleModel();
  if (!process.env.KAFKA_BOOTSTRAP_SERVERS) {
    const broker = await startBroker({ dir: path.join(work, 'kafka'), users: exampleUsers(model) });
    process.env.KAFKA_BOOTSTRAP_SERVERS = broker.bootstrapServers;
    process.env.KRT_TEST_BROKER_DIR = broker.dir;
  }
  try {
    await applyExampleStacks(model, { root: terraformRoot(), bootstrapServers: bootstrapServers() });
  } catch (error) {
    // Jest runs no teardown after a failed setup: the broker started here stops here.
    if (process.env.KRT_TEST_BROKER_DIR) await stopBroker(process.env.KRT_TEST_BROKER_DIR);
    throw error;
  }
}
