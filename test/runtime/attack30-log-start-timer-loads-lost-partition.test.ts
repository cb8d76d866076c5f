import { createKeyParking } from '../../src/runtime/key-parking';
import type { KeyParking } from '../../src/runtime/key-parking';
import type { HandleOutcome } from '../../src/runtime/record-handler';
import type { ConsumerPort, TopicPartitionOffset } from '../../src/runtime/port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { MAIN, mainRecord, TIER, tierRecord } from './key-parking-world';

/*
 * Attack 30 (work a timer starts). Class: a log-start check timer outliving a rebalance that
 * took the partition to another member.
 *
 * Scenario: two members M1, M2 of one group. M1 owns main partition 0: k:a failed into the
 * tier (k held at 0), k:b parked. After a first rebalance (M1 keeps p0) M1 loads p0 again and
 * its read of the log start is refused, so checkLogStartLater() sets a 5 s timer. Within those
 * 5 s a second rebalance gives p0 to M2 (M1.forget()). M2 loads p0, runs k:a's copy (the key
 * released, k:b runs), then k:c. M1's timer fires: onTimer(partition, generation, ...) is
 * called with `generation` read when the timer FIRES (checkLogStartLater's callback), not when
 * it was set, so the "while this member owns p as it did when the timer was set" check passes.
 * M1 loads p0 (a partition it no longer owns), seeks it on its client, and arms the hold's
 * expiry timer for that stray state; forget() is not called again (a stable group), so a whole
 * expiry later M1 releases the hold in its stale copy and commits it: the group's commit of
 * p0 goes back under M2's (k:b parked again). The next load of p0 (M2's rebalance, restart)
 * runs k:b again, after k:c: an older update over a newer one, and k:c again.
 *
 * Seen: M1 seeks p0 and commits p0 after it lost it; the commit of p0 goes from 3 back to 1;
 * after M2's next rebalance k:b runs after k:c.
 *
 * Code at fault: src/runtime/key-parking.ts, checkLogStartLater(): `onTimer(partition,
 * generation, ...)` inside the setTimer callback (and likewise in watchHolds, where forget()
 * happens to cancel the timer); logStartChecks is also not cleared by forget(). Class: timer
 * work guarded by a generation read at fire time (no guard at all). The broker checks only
 * the generation of a commit (eager rebalance: M1 is in the new one), not who owns p.
 *
 * Fixed: the generation is taken when the timer is set (`setIn`), and forget() clears the
 * pending checks: a timer of an earlier generation does nothing.
 *
 * Suggested fix: capture `const setIn = generation` when the timer is set and pass it to
 * onTimer; clear logStartChecks in forget() (and let the new generation ask again); never let
 * a timer load() a partition that no delivered record of this generation loaded.
 */

interface Timer { at: number; work: () => void; done: boolean }

function member(broker: MemoryBroker, name: string, timers: Timer[], now: () => number, outcomes: Record<string, HandleOutcome>, handled: string[], log: string[]) {
  const inner = broker.port().consumer('g');
  let refuseLogStart = false;
  const consumer: ConsumerPort = {
    ...inner,
    committed: (topic, partitions) => inner.committed(topic, partitions),
    pause: () => {},
    resume: () => {},
    seek: (s: TopicPartitionOffset) => void log.push(`${name} seek ${s.topic}-${s.partition}@${s.offset}`),
    commitOffsets: async (offsets) => {
      for (const o of offsets) if (o.topic === MAIN) log.push(`${name} commit ${o.topic}-${o.partition}@${o.offset}`);
      await inner.commitOffsets(offsets);
    },
    logStartOffsets: async (topic, partitions) => {
      if (refuseLogStart) {
        refuseLogStart = false;
        throw new Error('The admin client is not connected');
      }
      return inner.logStartOffsets!(topic, partitions);
    },
  };
  const parking: KeyParking = createKeyParking({
    mainTopic: MAIN,
    tierTopics: [TIER],
    consumer: () => consumer,
    handle: async (r) => {
      const label = `${r.message.key}:${r.message.value}`;
      handled.push(`${name} ${label}`);
      return outcomes[label] ?? 'success';
    },
    emit: () => {},
    budgetBytes: 4000,
    holdExpiryMs: 3_600_000,
    now,
    setTimer: (ms, work) => {
      const timer: Timer = { at: now() + ms, work, done: false };
      timers.push(timer);
      return () => void (timer.done = true);
    },
    commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
    retryLater: () => {},
  });
  return { parking, refuseLogStartOnce: () => void (refuseLogStart = true) };
}

it('a member that lost a partition does not load, seek or commit it from a log-start timer set before the rebalance', async () => {
  const broker = new MemoryBroker(new VirtualClock(0));
  broker.createTopic(MAIN, 1);
  broker.createTopic(TIER, 1);
  for (const v of ['a', 'b', 'c']) broker.append(MAIN, { key: Buffer.from('k'), value: Buffer.from(v), partition: 0 });
  let now = 0;
  const timers: Timer[] = [];
  const settle = async () => {
    for (let i = 0; i < 30; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  const advanceTo = async (at: number) => {
    now = at;
    for (const timer of timers.filter((t) => !t.done && t.at <= at)) {
      timer.done = true;
      timer.work();
    }
    await settle();
  };
  const handled: string[] = [];
  const log: string[] = [];
  const outcomes: Record<string, HandleOutcome> = { 'k:a': 'tier', 'k:c': 'success' };
  const m1 = member(broker, 'M1', timers, () => now, outcomes, handled, log);
  const m2 = member(broker, 'M2', timers, () => now, outcomes, handled, log);
  const runTier = (p: KeyParking, offset: number, original: number) =>
    p.onTierRecord(tierRecord(offset, 'k', original), async () => {
      handled.push(`tier k@${original}`);
      return { outcome: 'success', commit: { topic: TIER, partition: 0, offset: String(offset + 1) } };
    });

  // M1 owns p0: k:a into the tier (k held at 0), k:b parked behind it.
  await m1.parking.onMainRecord(mainRecord(0, 'k', 'a'));
  await m1.parking.onMainRecord(mainRecord(1, 'k', 'b'));
  // A first rebalance: M1 keeps p0 and reads it again from the commit (1); its log-start read is refused.
  m1.parking.forget();
  m1.refuseLogStartOnce();
  await m1.parking.onMainRecord(mainRecord(1, 'k', 'b')); // loads (and seeks back to 1): fetched before that seek
  await m1.parking.onMainRecord(mainRecord(1, 'k', 'b'));
  await settle();
  // 1 s later a second rebalance gives p0 to M2 (M1 stays in the group).
  await advanceTo(1_000);
  m1.parking.forget();
  const lostAt = log.length;
  await m2.parking.onMainRecord(mainRecord(1, 'k', 'b'));
  await m2.parking.onMainRecord(mainRecord(1, 'k', 'b'));
  await m2.parking.onMainRecord(mainRecord(2, 'k', 'c')); // parked behind the hold
  // M1's 5 s timer fires.
  await advanceTo(5_000);
  // M2 runs k:a's copy: the key is released, k:b and k:c run.
  await runTier(m2.parking, 0, 0);
  await settle();
  const committedByM2 = broker.committedOffset('g', MAIN, 0);
  // A whole expiry later, no rebalance meanwhile.
  await advanceTo(5_000 + 3_600_000);
  const committedAfterExpiry = broker.committedOffset('g', MAIN, 0);
  // M2's next rebalance: p0 read again from the group's commit.
  m2.parking.forget();
  for (let offset = committedAfterExpiry ?? 0; offset < 3; offset++) {
    await m2.parking.onMainRecord(mainRecord(offset, 'k', ['a', 'b', 'c'][offset]!));
    await m2.parking.onMainRecord(mainRecord(offset, 'k', ['a', 'b', 'c'][offset]!));
  }
  await settle();
  const byM1AfterLoss = log.slice(lostAt).filter((l) => l.startsWith('M1'));
  // Seen: M1 seek orders-0@1 and M1 commit orders-0@1 after the loss; commit 3 -> 1; k:b (and k:c) ran again after k:c.
  expect({ byM1AfterLoss, committedByM2, committedAfterExpiry, handled }).toEqual({
    byM1AfterLoss: [],
    committedByM2: 3,
    committedAfterExpiry: 3,
    handled: ['M1 k:a', 'tier k@0', 'M2 k:b', 'M2 k:c'],
  });
});
