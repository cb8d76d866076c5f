/**
 * One client's broker outage in a process of its own (see bench/outage.ts): the Confluent
 * client's native threads must not outlive their run into the next client's. Takes
 * {"client":..., "brokerDir":...} as its argument and prints the result as the last line.
 */
import { benchClient } from './clients';
import type { BenchClientName } from './clients';
import { runOutage } from './outage';

const { client, brokerDir } = JSON.parse(process.argv[2]!) as { client: BenchClientName; brokerDir: string };
const bench = benchClient(client);
runOutage({ client: bench.title, port: bench.port, brokerDir, log: (line) => process.stderr.write(`[bench]   ${line}\n`) }).then(
  (result) => {
    process.stdout.write(`\n${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
