import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBroker, stopBroker } from '../../scripts/kafka/broker';
import { createMainTopics, DEPLOYER_USER, exampleModel, prepareTerraformWorkingCopy, principalNames, terraformIn, terraformVars } from '../helpers/kafka';
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
    const broker = await startBroker({ dir: path.join(work, 'kafka'), users: [...principalNames(model), DEPLOYER_USER] });
    process.env.KAFKA_BOOTSTRAP_SERVERS = broker.bootstrapServers;
    process.env.KRT_TEST_BROKER_DIR = broker.dir;
  }
  try {
    await createMainTopics(model);
    for (const topology of model.topologies) applyStack(topology.name);
  } catch (error) {
    // Jest runs no teardown after a failed setup: the broker started here stops here.
    if (process.env.KRT_TEST_BROKER_DIR) await stopBroker(process.env.KRT_TEST_BROKER_DIR);
    throw error;
  }
}

/**
 * The provider's Kafka client now and then loses a connection mid-apply on a loaded
 * machine ("kafka: broker not connected", with nothing in the broker's log). What it did
 * is in the state, so applying again finishes the job; any other failure fails at once.
 */
const LOST_CONNECTION = /broker not connected|connection reset by peer|i\/o timeout|: EOF\b/;
const APPLY_ATTEMPTS = 3;

function applyStack(stack: string): void {
  prepareTerraformWorkingCopy(stack);
  for (let attempt = 1; ; attempt++) {
    const apply = terraformIn(stack, ['apply', '-auto-approve', ...terraformVars()]);
    if (apply.code === 0) return;
    if (attempt === APPLY_ATTEMPTS || !LOST_CONNECTION.test(apply.output)) throw new Error(`terraform apply of ${stack} failed (attempt ${attempt}):\n${apply.output}`);
    console.warn(`terraform apply of ${stack}: the provider lost a connection to the broker (attempt ${attempt} of ${APPLY_ATTEMPTS}); applying again`);
  }
}
