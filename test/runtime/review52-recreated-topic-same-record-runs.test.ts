/*
 * Review 52 (attack on f43f79c, ran-awaiting-commit.ts): a record of a main topic deleted and
 * created again was taken for the old log's record whose state commit was refused, and never ran.
 * Fixed: a run is remembered only under a state with an id (a new log's state takes a new one).
 *
 * Seen: park-by-key whose state budget cannot keep a state id (40 bytes here: a broker whose
 * offset.metadata.max.bytes was lowered, or a small parkingBudgetBytes; fitId() drops the id, so
 * every state of the partition has none). Record k:a at offset 0 runs; its state commit is
 * refused (the operation fails). The main topic is then deleted and created again (its group
 * commits go with it) and the new log's first record, written by a producer that sets its own
 * timestamp (event time: the same key, value and timestamp as the old log's record), comes at
 * offset 0. The new log begins from nothing, yet the record is not run: handled is
 * ['k:a@0'], and the new log is committed past it. With the default budget (the new state takes
 * a new id) it runs. Before f43f79c it ran.
 *
 * Code at fault: src/runtime/ran-awaiting-commit.ts take(): the state id is the only thing that
 * tells "the state it ran under" from another state, and a state without an id (budget.fitId)
 * compares equal to any other state without one (undefined === undefined); the record's identity
 * (offset, timestamp, key, value digest) cannot tell a new log's record from the old one's. The
 * memo also outlives the rebalance and the new log (no generation, no log check), and key-parking.ts
 * onMainRecord consults it for the first record of a state begun from nothing.
 *
 * Class of bug: a dedup memo keyed on an identity that can be absent (undefined matches
 * undefined), kept across a change of log.
 *
 * Suggested fix: remember only under a state with an id (stateId !== undefined), or forget the
 * memo when a partition's state is begun from nothing / read as lost (load() with takesId), at
 * forget() (a rebalance), and when a main record is found moved back (the new-log path).
 */
import { createKeyParking } from '../../src/runtime/key-parking';
import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

const MAIN = 'orders';
/** A record as its producer wrote it: the timestamp is the producer's (event time), not the broker's. */
const record = (offset: number, key: string, value: string): ConsumedRecord => ({
  topic: MAIN,
  partition: 0,
  message: { key: Buffer.from(key), value: Buffer.from(value), offset: String(offset), timestamp: '1700000000000' },
});

function setup(budgetBytes: number) {
  const broker = new MemoryBroker(new VirtualClock(0));
  broker.createTopic(MAIN, 1);
  const inner = broker.port().consumer('g');
  const handled: string[] = [];
  /** Commits to let through before the next one refused (undefined: none refused). */
  let refuseAfter: number | undefined;
  const consumer: ConsumerPort = {
    ...inner,
    seek: () => {},
    pause: () => {},
    resume: () => {},
    committed: (topic, partitions) => inner.committed(topic, partitions),
    commitOffsets: async (offsets: OffsetCommit[]) => {
      if (refuseAfter !== undefined && refuseAfter-- === 0) {
        refuseAfter = undefined;
        throw new Error('The coordinator is not available');
      }
      await inner.commitOffsets(offsets);
    },
  };
  const parking = createKeyParking({
    mainTopic: MAIN,
    tierTopics: [],
    consumer: () => consumer,
    handle: async (r) => {
      handled.push(`${r.message.key}:${r.message.value}@${r.message.offset}`);
      return 'success';
    },
    emit: () => {},
    budgetBytes,
    holdExpiryMs: 3_600_000,
    now: () => 0,
    setTimer: () => () => {},
    commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
    retryLater: () => {},
  });
  return { broker, parking, handled, refuseCommitAfter: (n: number) => (refuseAfter = n) };
}

describe('a main record taken again after its state commit was refused', () => {
  it('runs a record of the main topic created again, at the offset and with the identity of the old log\'s record whose commit was refused, when the state has no id', async () => {
    const s = setup(40);
    s.refuseCommitAfter(1); // the load's commit of the new state goes through; the record's is refused
    await expect(s.parking.onMainRecord(record(0, 'k', 'a'))).rejects.toThrow('coordinator');
    expect(s.broker.committedMetadata('g', MAIN, 0)).not.toContain('!'); // no id: the budget cannot keep one
    // The main topic deleted and created again; the group rebalances.
    s.broker.recreateTopic(MAIN);
    s.parking.forget();
    await s.parking.onMainRecord(record(0, 'k', 'a')); // the new log's first record
    // Seen: ['k:a@0'] (the new log's record skipped as the old one's, committed past).
    expect(s.handled).toEqual(['k:a@0', 'k:a@0']);
  });

  it('runs it with a budget that keeps the state id (the contrast)', async () => {
    const s = setup(4000);
    s.refuseCommitAfter(1);
    await expect(s.parking.onMainRecord(record(0, 'k', 'a'))).rejects.toThrow('coordinator');
    s.broker.recreateTopic(MAIN);
    s.parking.forget();
    await s.parking.onMainRecord(record(0, 'k', 'a'));
    expect(s.handled).toEqual(['k:a@0', 'k:a@0']);
  });
});
