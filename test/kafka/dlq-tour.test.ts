import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { kafkaFromEnv } from '../../src/connection/kafka-connection';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { bootstrapServers, exampleModel } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';

jest.setTimeout(6 * 60_000);

/** `npm run tour:dlq -- --no-console`, as package.json spells the script, on the suite's broker (KAFKA_BOOTSTRAP_SERVERS). */
function runTour(): { status: number | null; stdout: string; stderr: string } {
  const [bin, ...args] = (require(path.join(REPO_ROOT, 'package.json')) as { scripts: Record<string, string> }).scripts['tour:dlq']!.split(' ');
  const run = spawnSync(path.join(REPO_ROOT, 'node_modules', '.bin', bin!), [...args, '--no-console'], { cwd: REPO_ROOT, encoding: 'utf8', env: process.env });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The environment of the console command the tour prints last. */
function consoleEnv(stdout: string): Record<string, string> {
  const command = stdout.split('\n').find((line) => line.trim().endsWith('npx krt console'));
  if (!command) throw new Error(`the tour printed no krt console command:\n${stdout}`);
  return Object.fromEntries(command.trim().split(' ').filter((word) => word.includes('=')).map((word) => word.split('=', 2) as [string, string]));
}

describe("the README's DLQ tour (npm run tour:dlq) on the test broker", () => {
  let billing: ConsumerModel;
  let tour: ReturnType<typeof runTour>;

  beforeAll(async () => {
    billing = (await exampleModel()).topologies.find((t) => t.name === 'orders')!.consumers.find((c) => c.name === 'billing-order-confirmed')!;
    tour = runTour();
  });

  it('finishes, and prints the console command for the replay principal of topology orders on this broker', () => {
    expect({ status: tour.status, stderr: tour.status === 0 ? '' : tour.stderr }).toEqual({ status: 0, stderr: '' });
    expect(consoleEnv(tour.stdout)).toEqual({
      KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(),
      KAFKA_SASL_USERNAME: 'orders-replay',
      KAFKA_SASL_PASSWORD: 'orders-replay-secret',
      KAFKA_SSL: 'false',
    });
    // It started no broker, so it has none to stop.
    expect(tour.stdout).not.toContain('kafka:stop');
  });

  it("leaves the four orders the billing service cannot process in billing's DLQ, unhandled, where the console's credentials read them; the two it charged are not there", async () => {
    const run = /orders (tour-[0-9a-f]+)-\*/.exec(tour.stderr)?.[1];
    expect(run).toBeDefined();
    const session = await DlqSession.open(kafkaFromEnv(consoleEnv(tour.stdout), 'krt-tour-test'), billing, 60_000, (record) => record.key?.toString('utf8').startsWith(`${run}-`) ?? false);
    await session.close();
    const deadLetters = session.records.map((r) => [r.key!.toString('utf8'), r.decoded.errorClass, r.decoded.originalTopic, r.decoded.attempt]).sort();
    expect(deadLetters).toEqual([
      [`${run}-3`, 'ZodError', 'orders.confirmed', 1],
      [`${run}-4`, 'SyntaxError', 'orders.confirmed', 1],
      [`${run}-5`, 'ZodError', 'orders.confirmed', 1],
      [`${run}-6`, 'HTTPError', 'orders.confirmed', 1],
    ]);
    // The tour lists the same records, by the ids the console shows.
    for (const record of session.records) expect(tour.stderr).toContain(` ${record.id} ${record.key!.toString('utf8')} ${record.decoded.errorClass}: `);
  });
});
