import { Registry } from 'prom-client';
import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import type { ConsumerPort, KafkaPort, OffsetCommit } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { valueOf } from './harness';

/**
 * After a broker outage, a member knows the group's commit for its own, and reads past what it
 * finished, by the stamp its unordered commits carry in their metadata (own-commit-stamp.ts), not
 * by what the broker answered: an answer lost, or a "no" that was wrong (the Confluent client's
 * confirming read ran before its queued commit landed), no longer makes its finished records run
 * again; and another member's commit at an offset this member once sent is not taken for its own.
 */

/** What main commits do until told otherwise: land and answer "not stored" (a queued commit shown late), or get lost on the way (not stored, no answer). */
type Commits = 'stored-answered-no' | 'lost-not-stored' | undefined;

function world(options: { carriesMetadata?: boolean } = {}) {
  const consumer = billingDescriptor();
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  const produce = (value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(value), value: Buffer.from(value), partition: 0 });
  let commits: Commits;
  const port = broker.port();
  const kafka: KafkaPort = {
    producer: () => port.producer(),
    consumer: (groupId, consumerOptions) => {
      const c = port.consumer(groupId, consumerOptions);
      const commitOffsets = c.commitOffsets.bind(c);
      return Object.assign(c, {
        carriesCommitMetadata: options.carriesMetadata ?? true,
        commitOffsets: async (offsets: OffsetCommit[]) => {
          const what = groupId === consumer.groups.main ? commits : undefined;
          if (what === 'lost-not-stored') throw Object.assign(new Error('Connection error: read ECONNRESET'), { retriable: true });
          await commitOffsets(offsets);
          if (what === 'stored-answered-no') throw Object.assign(new Error('the group coordinator does not show the commit'), { notStored: true });
        },
      });
    },
  };
  const ran: string[] = [];
  const retrying = createRetryingConsumer(consumer, {
    kafka,
    clock,
    registry: new Registry(),
    random: () => 0.5,
    commit: { intervalMs: 60_000, maxRecords: 5 },
    handler: async (record: ConsumedRecord) => void ran.push(valueOf(record)),
  });
  const committed = () => broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0);
  return { consumer, clock, broker, produce, ran, retrying, committed, commitsNow: (what: Commits) => (commits = what) };
}

describe('a member knows its own commit by the stamp its unordered commits carry', () => {
  it('reads past what it finished when its commit landed though the answer said "not stored" (a commit shown late)', async () => {
    const w = world();
    for (let i = 0; i < 102; i++) w.produce(`r-${i}`);
    await w.retrying.start();
    await w.broker.run({ stopWhen: () => w.ran.length >= 102 });
    expect(w.committed()).toBe(100);
    // The interval's commit of 102 lands, and the answer says it did not.
    w.commitsNow('stored-answered-no');
    await w.broker.run({ until: w.clock.now() + 60_000 });
    expect(w.committed()).toBe(102);
    w.commitsNow(undefined);
    // Finished after it, not committed yet (the window is not full, the retry is a minute away).
    w.produce('r-102');
    w.produce('r-103');
    await w.broker.run({ stopWhen: () => w.ran.length >= 104 });
    w.broker.rebalance(w.consumer.groups.main);
    await w.broker.run({ until: w.clock.now() + 1_000 });
    await w.retrying.stop();

    expect(w.ran.filter((r) => r === 'r-102' || r === 'r-103')).toEqual(['r-102', 'r-103']);
  });

  it('runs a recreated topic\'s records from another member\'s commit at an offset whose own commit was lost on the way', async () => {
    const w = world();
    for (let i = 0; i < 102; i++) w.produce(`old-${i}`);
    await w.retrying.start();
    await w.broker.run({ stopWhen: () => w.ran.length >= 102 });
    expect(w.committed()).toBe(100);
    // The interval's commit of 102 is lost on the way: not stored, and no answer says so.
    w.commitsNow('lost-not-stored');
    await w.broker.run({ until: w.clock.now() + 60_000 });
    w.produce('old-102');
    w.produce('old-103');
    await w.broker.run({ stopWhen: () => w.ran.length >= 104 });
    expect(w.committed()).toBe(100);
    w.commitsNow(undefined);

    // Meanwhile, on member B: the topic recreated, its records 0-101 run there and committed at 102.
    const b = w.broker as unknown as { logs: Map<string, unknown[][]> };
    b.logs.set(w.consumer.mainTopic, [[]]);
    for (let i = 0; i < 120; i++) w.produce(`new-${i}`);
    w.broker.commit(w.consumer.groups.main, [{ topic: w.consumer.mainTopic, partition: 0, offset: '102' }]);
    w.broker.rebalance(w.consumer.groups.main);
    await w.broker.run({ until: w.clock.now() + 120_000 });
    await w.retrying.stop();

    expect(w.ran.filter((r) => r.startsWith('new-'))).toEqual(Array.from({ length: 18 }, (_, i) => `new-${i + 102}`));
  });

  it('reads past what it finished when a broker started again shows an older commit of its own, its later ones lost (not a new log)', async () => {
    const w = world();
    for (let i = 0; i < 50; i++) w.produce(`r-${i}`);
    await w.retrying.start();
    await w.broker.run({ stopWhen: () => w.ran.length >= 50 });
    expect(w.committed()).toBe(50);
    const older = { offset: '50', metadata: w.broker.committedMetadata(w.consumer.groups.main, w.consumer.mainTopic, 0)! };
    for (let i = 50; i < 102; i++) w.produce(`r-${i}`);
    await w.broker.run({ stopWhen: () => w.ran.length >= 102 });
    expect(w.committed()).toBe(100);
    // Killed and started again: the group shows the commit of 50 again, the later ones lost.
    w.broker.commit(w.consumer.groups.main, [{ topic: w.consumer.mainTopic, partition: 0, ...older }]);
    w.broker.rebalance(w.consumer.groups.main);
    await w.broker.run({ until: w.clock.now() + 1_000 });
    await w.retrying.stop();

    expect(w.ran.length).toBe(102);
    expect(w.committed()).toBe(102);
  });

  it('still takes an older commit without its stamp, below the one acknowledged to it, for a new log (a recreated topic)', async () => {
    const w = world();
    for (let i = 0; i < 102; i++) w.produce(`old-${i}`);
    await w.retrying.start();
    await w.broker.run({ stopWhen: () => w.ran.length >= 102 });
    expect(w.committed()).toBe(100);
    const b = w.broker as unknown as { logs: Map<string, unknown[][]> };
    b.logs.set(w.consumer.mainTopic, [[]]);
    for (let i = 0; i < 110; i++) w.produce(`new-${i}`);
    // Another member ran the new log's 0-49 and committed 50 (no stamp of this member's).
    w.broker.commit(w.consumer.groups.main, [{ topic: w.consumer.mainTopic, partition: 0, offset: '50' }]);
    w.broker.rebalance(w.consumer.groups.main);
    await w.broker.run({ until: w.clock.now() + 120_000 });
    await w.retrying.stop();

    expect(w.ran.filter((r) => r.startsWith('new-'))).toEqual(Array.from({ length: 60 }, (_, i) => `new-${i + 50}`));
  });

  it('stamps nothing on a client that carries no metadata (@platformatic/kafka), and still reads past its own acknowledged commit', async () => {
    const w = world({ carriesMetadata: false });
    for (let i = 0; i < 102; i++) w.produce(`r-${i}`);
    await w.retrying.start();
    await w.broker.run({ stopWhen: () => w.ran.length >= 102 });
    expect(w.committed()).toBe(100);
    expect(w.broker.committedMetadata(w.consumer.groups.main, w.consumer.mainTopic, 0)).toBeNull();
    w.broker.rebalance(w.consumer.groups.main);
    await w.broker.run({ until: w.clock.now() + 1_000 });
    await w.retrying.stop();

    expect(w.ran.filter((r) => r === 'r-100' || r === 'r-101')).toEqual(['r-100', 'r-101']);
  });
});

describe('without a stamp, an offset is this member\'s own while one of its sends may have been stored', () => {
  /** Stores the commit and loses the answer, or answers "no" without storing it (a retry refused after the outage). */
  function consumerAnswering(answers: ('stored-lost' | 'no')[]) {
    const stored = new Map<number, string>();
    const consumer = {
      commitOffsets: async (offsets: OffsetCommit[]) => {
        const answer = answers.shift();
        if (answer === 'no') throw Object.assign(new Error('The coordinator is not aware of this member'), { name: 'KafkaJSProtocolError' });
        for (const o of offsets) stored.set(o.partition, o.offset);
        if (answer === 'stored-lost') throw Object.assign(new Error('Connection error: read ECONNRESET'), { retriable: true });
      },
    } as unknown as ConsumerPort;
    return { consumer, stored };
  }
  const at = (offset: number): OffsetCommit => ({ topic: 'orders', partition: 0, offset: String(offset) });

  it('keeps an offset whose answer was lost as its own when a later send of it is answered "no"', async () => {
    const c = consumerAnswering([undefined as never, 'stored-lost', 'no']);
    const committer = createOffsetCommitter(() => c.consumer, new VirtualClock(0), { intervalMs: 0, maxRecords: 500 }, () => {});
    await committer.mark(at(10));
    await committer.mark(at(20)); // stored, the answer lost
    await committer.flush().catch(() => {}); // the same again: answered "no"
    expect(c.stored.get(0)).toBe('20');
    expect(committer.isOwnCommit('orders', 0, 20n)).toBe(true);
  });

  it('drops an offset every send of which was answered "no"', async () => {
    const c = consumerAnswering([undefined as never, 'no', 'no']);
    const committer = createOffsetCommitter(() => c.consumer, new VirtualClock(0), { intervalMs: 0, maxRecords: 500 }, () => {});
    await committer.mark(at(10));
    await committer.mark(at(20));
    await committer.flush().catch(() => {});
    expect(c.stored.get(0)).toBe('10');
    expect(committer.isOwnCommit('orders', 0, 20n)).toBe(false);
  });

  it('with a stamp, knows its own by the stamp alone: not another member\'s commit at an offset it sent', async () => {
    const stored: OffsetCommit[] = [];
    const consumer = { carriesCommitMetadata: true, commitOffsets: async (offsets: OffsetCommit[]) => void stored.push(...offsets) } as unknown as ConsumerPort;
    const committer = createOffsetCommitter(() => consumer, new VirtualClock(0), { intervalMs: 0, maxRecords: 500 }, () => {}, { stampOwnCommits: true });
    await committer.mark(at(10));
    const stamp = stored[0]!.metadata;
    expect(stamp).toMatch(/^krt-own:/);
    expect(committer.isOwnCommit('orders', 0, 10n, stamp)).toBe(true);
    expect(committer.isOwnCommit('orders', 0, 10n, null)).toBe(false);
    expect(committer.isOwnCommit('orders', 0, 10n, 'krt-own:another-member.0')).toBe(false);
    // The Confluent client may pad metadata with NULs.
    expect(committer.isOwnCommit('orders', 0, 12n, `${stamp}\u0000\u0000`)).toBe(true);
  });
});
