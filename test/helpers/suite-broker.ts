import { readBrokerInfo, restartBroker } from '../../scripts/kafka/broker';
import { processAlive } from '../../scripts/kafka/process-alive';

/** The suite broker's directory, for tests that kill and start it again; they need it. */
export function suiteBrokerDir(): string {
  const dir = process.env.KRT_TEST_BROKER_DIR;
  if (!dir) throw new Error('needs the suite broker (KRT_TEST_BROKER_DIR): run it with the broker project');
  return dir;
}

/** Starts the suite broker again if a test left it dead, so the tests after it have one. */
export async function restoreSuiteBroker(dir: string): Promise<void> {
  const info = readBrokerInfo(dir);
  if (!info || !processAlive(info.pid)) await restartBroker(dir);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
