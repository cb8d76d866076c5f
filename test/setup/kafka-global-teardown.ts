import { rmSync } from 'node:fs';
import { stopBroker } from '../../scripts/kafka/broker';

export default async function globalTeardown(): Promise<void> {
  if (process.env.KRT_TEST_BROKER_DIR) await stopBroker(process.env.KRT_TEST_BROKER_DIR);
  if (process.env.KRT_TEST_WORK_DIR) rmSync(process.env.KRT_TEST_WORK_DIR, { recursive: true, force: true });
}
