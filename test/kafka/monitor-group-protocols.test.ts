import { randomBytes } from 'node:crypto';
import type { Admin, Consumer, PartitionAssigner } from 'kafkajs';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { everyPartitionAssigner } from '../../src/runtime/adapters/every-partition-assigner';
import { MONITOR_ASSIGNERS } from '../../src/runtime/adapters/kafkajs-monitor';
import { kafkaAsAdmin } from '../helpers/kafka';

jest.setTimeout(120_000);

interface Join {
  readonly groupProtocol: string;
  readonly isLeader: boolean;
  readonly memberAssignment: Record<string, number[]>;
}

/** A member of `group` reading `topic` and staying: each join it heard, and each crash. `assigners` undefined: kafkajs's default, as a monitor of an older release. */
async function member(group: string, topic: string, assigners: unknown[] | undefined) {
  const client: Consumer = kafkaAsAdmin().consumer({
    groupId: group,
    heartbeatInterval: 1_000,
    ...(assigners ? { partitionAssigners: assigners as PartitionAssigner[] } : {}),
    retry: { retries: 0 },
  });
  const joins: Join[] = [];
  const crashes: unknown[] = [];
  client.on(client.events.GROUP_JOIN, ({ payload }) => void joins.push(payload as unknown as Join));
  client.on(client.events.CRASH, ({ payload }) => void crashes.push(payload.error));
  await client.connect();
  await client.subscribe({ topics: [topic], fromBeginning: true });
  void client.run({ autoCommit: false, eachMessage: async () => undefined }).catch((error: unknown) => crashes.push(error));
  return { joins, crashes, last: () => joins.at(-1), leave: () => client.disconnect() };
}

async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within 30 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A rolling upgrade: monitors of the older release announce only kafkajs's round-robin
 * protocol, the new ones the every-partition protocol first and the same assignment under
 * the round-robin name second. The broker picks a protocol every member announces (each
 * member voting for the first of its own it can), and refuses a member that shares none with
 * the group. These are what kafkajs and the broker do with the members' lists.
 */
describe('monitors of two releases in one monitor group', () => {
  let admin: Admin;
  let topic: string;
  const left: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    admin = kafkaAsAdmin().admin();
    await admin.connect();
    topic = `h138-protocols-${randomBytes(4).toString('hex')}`;
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 2, replicationFactor: 1 }]);
  });
  afterEach(async () => {
    for (const leave of left.splice(0)) await leave();
  });
  afterAll(() => admin.disconnect());

  const joined = async (group: string, assigners: unknown[] | undefined) => {
    const m = await member(group, topic, assigners);
    left.push(m.leave);
    await until('the member joined', () => m.joins.length > 0 || m.crashes.length > 0);
    return m;
  };

  it('agree on the round-robin name while an old monitor is in the group, and a new one leading gives the old one every partition', async () => {
    const group = `${topic}.led-by-new`;
    const fresh = await joined(group, MONITOR_ASSIGNERS);
    const old = await joined(group, undefined);
    await until('the new monitor rejoined', () => fresh.last()?.groupProtocol === 'RoundRobinAssigner');
    expect({ old: old.last(), fresh: fresh.last()?.groupProtocol, crashes: [...old.crashes, ...fresh.crashes] }).toEqual({
      old: expect.objectContaining({ groupProtocol: 'RoundRobinAssigner', isLeader: false, memberAssignment: { [topic]: [0, 1] } }),
      fresh: 'RoundRobinAssigner',
      crashes: [],
    });
  });

  it('agree on the round-robin name when the old monitor leads, which splits the partitions as before the upgrade', async () => {
    const group = `${topic}.led-by-old`;
    const old = await joined(group, undefined);
    const fresh = await joined(group, MONITOR_ASSIGNERS);
    expect({ fresh: fresh.last(), crashes: [...old.crashes, ...fresh.crashes] }).toEqual({
      fresh: expect.objectContaining({ groupProtocol: 'RoundRobinAssigner', isLeader: false, memberAssignment: { [topic]: [expect.any(Number)] } }),
      crashes: [],
    });
  });

  it('would refuse a new monitor announcing the every-partition protocol alone while an old one is in the group', async () => {
    const group = `${topic}.alone`;
    await joined(group, undefined);
    const fresh = await joined(group, [everyPartitionAssigner]);
    expect({ joins: fresh.joins, refused: (fresh.crashes[0] as { type?: string }).type }).toEqual({ joins: [], refused: 'INCONSISTENT_GROUP_PROTOCOL' });
  });

  it('pick the every-partition protocol once the old monitors are gone', async () => {
    const group = `${topic}.upgraded`;
    const old = await joined(group, undefined);
    const first = await joined(group, MONITOR_ASSIGNERS);
    await old.leave();
    const second = await joined(group, MONITOR_ASSIGNERS);
    await until('the first new monitor rejoined', () => first.last()?.groupProtocol === 'KrtDlqReadEverything');
    expect([first.last()?.memberAssignment, second.last()]).toEqual([{ [topic]: [0, 1] }, expect.objectContaining({ groupProtocol: 'KrtDlqReadEverything', memberAssignment: { [topic]: [0, 1] } })]);
  });
});
