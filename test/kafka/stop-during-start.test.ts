import path from 'node:path';
import type { Admin } from 'kafkajs';
import { ADMIN_USER } from '../../scripts/kafka/broker';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { exitWithin, spawnChild } from '../helpers/child-process';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, createTopicsOf, kafkaAsAdmin, testDescriptor } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';
import { eachClientOrdering } from './clients';

jest.setTimeout(600_000);

/** How long the worker may take to leave once start() and stop() both settled: no client may keep it alive. */
const EXIT_MS = 15_000;

/** The calls start() makes with each ordering (see the worker): stop() comes while each is under way. */
const STEPS: Readonly<Record<string, number>> = { unordered: 7, 'park-by-key': 4 };
/** The run() steps (the join): stop() also comes half a second into them. */
const RUN_STEPS: Readonly<Record<string, readonly number[]>> = { unordered: [5, 6], 'park-by-key': [3] };

async function membersOf(admin: Admin, d: ConsumerDescriptor): Promise<Record<string, number>> {
  const { groups } = await admin.describeGroups([...new Set([d.groups.main, d.groups.retry])]);
  return Object.fromEntries(groups.map((g) => [g.groupId, g.members.length]));
}

eachClientOrdering('a retrying consumer stopped while start() waits on the broker', ({ name: client }, ordering) => {
  let admin: Admin;
  beforeAll(async () => {
    admin = kafkaAsAdmin().admin();
    await admin.connect();
  });
  afterAll(() => admin.disconnect());

  const cases = [
    ...Array.from({ length: STEPS[ordering]! }, (_, at) => ({ at, delayMs: 0 })),
    ...RUN_STEPS[ordering]!.map((at) => ({ at, delayMs: 500 })),
  ];
  it.each(cases)('stopped at step $at (+$delayMs ms): the process exits on its own and leaves no member in its groups', async ({ at, delayMs }) => {
    const base = testDescriptor('stopstart', [1]);
    const d: ConsumerDescriptor = ordering === 'park-by-key' ? { ...base, ordering, groups: { ...base.groups, retry: base.groups.main } } : base;
    await createTopicsOf(d, 2);
    const worker = spawnChild(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'jiti', 'lib', 'jiti-cli.mjs'), path.join(__dirname, 'stop-during-start-worker.ts')], {
      cwd: REPO_ROOT,
      env: { ...process.env, STOP_DESCRIPTOR: JSON.stringify(d), STOP_AT: String(at), STOP_DELAY_MS: String(delayMs), STOP_CLIENT: client, STOP_USER: ADMIN_USER, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers() },
    });
    const settled = await eventually(
      'start() and stop() to settle in the worker',
      () => {
        const line = worker.stdout().split('\n').find((l) => l.startsWith('{'));
        if (line === undefined) worker.assertRunning('the worker');
        return line === undefined ? undefined : (JSON.parse(line) as { started: string; stop: string; steps: string[] });
      },
      120_000,
    );
    const exit = await exitWithin(worker, EXIT_MS);
    // A member that joined and was not left stays for its session timeout (30 s), well past this look.
    const members = await membersOf(admin, d);
    expect({ at, stop: settled.stop, exit, members }).toEqual({
      at,
      stop: 'fulfilled',
      exit: { code: 0, signal: null },
      members: Object.fromEntries(Object.keys(members).map((g) => [g, 0])),
    });
  });
});
