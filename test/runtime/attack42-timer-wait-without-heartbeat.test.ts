import { KafkaJSProtocolError } from 'kafkajs';
import { markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { consumer, hookConsumers, T0, tier1m, world } from './park-by-key-world';

/*
 * Class: a wait that holds the partition's lock with nobody heartbeating (stall, then duplicates:
 * the member's session runs out while kafkajs's callback waits behind the lock).
 *
 * Scenario: park-by-key on kafkajs. k:a fails once (k held, its copy in the 1m tier), k:b parks
 * behind it; the tier copy is then deleted (tier retention), so only the hold's expiry timer
 * releases k. From the expiry on, for 60 s, the group coordinator answers every commit of the
 * main topic after the broker's `offsets.commit.timeout.ms` (5 s, its default) with
 * REQUEST_TIMED_OUT (the __consumer_offsets partition short of in-sync replicas: commits time out,
 * heartbeats, kept in the coordinator's memory, are answered), which the kafkajs adapter marks worth
 * waiting out. A main record k2:c of the same partition is produced as the first commit is refused:
 * its eachMessage callback waits for the partition's lock.
 *
 * Seen: the expiry timer's operation (releaseExpired: k:b drained and run, then its state commit)
 * sends its state commit again in place for ~33 s (7 sends of 5 s plus 6.3 s of waits) without
 * one heartbeat: a timer's operation registers none (key-parking.ts locked(): `heartbeats.delete`),
 * so patienceOf's heartbeat is a no-op. Meanwhile k2:c's callback, blocked on the lock, keeps
 * kafkajs from heartbeating (it heartbeats only between callbacks): 33 s with no heartbeat, past
 * kafkajs's default session (30 s): on a real group the member is evicted and its partitions'
 * uncommitted records (k:b, whose state commit never got stored) run again on another member.
 * (kafkajs heartbeats only after a callback's message; with partitionsConsumedConcurrently a callback
 * of a partition on another broker may still heartbeat, so the eviction needs the member's other
 * partitions quiet meanwhile, or all on the blocked fetcher's broker; the timer's wait heartbeats
 * nothing in any case.)
 * On d25af66^ the timer's operation failed at the first refusal (5 s) and was tried again 5 s
 * later: the callback behind it waited 5 s.
 *
 * Code at fault: src/runtime/key-parking.ts patienceOf: `heartbeat: () => heartbeats.get(partition)?.()
 * ?? Promise.resolve()` with onTimer's locked() registering no heartbeat; commit-patience.ts's wait
 * assumes the operation that waits is the one kafkajs's callback runs.
 *
 * Suggested fix: a timer's operation does not wait out refusals (owner undefined: its record is
 * parked, nothing ran that a failure runs again... except the drained ones), or it heartbeats with
 * the heartbeat of the last record delivered of the partition (kept past its callback: kafkajs's
 * payload.heartbeat is the consumer group's, valid after it), or with the blocked callback's own
 * (register the heartbeat of a callback waiting on the lock too).
 *
 * Caused by the change (d25af66): passes on d25af66^.
 *
 * Fixed: only a record's callback, which heartbeats after each wait, waits out a refusal; a
 * timer's operation fails as before (key-parking.ts commitState `patient`).
 */
jest.setTimeout(60_000);
// Fails on a791738 (33,200 ms); passes on d25af66^ (caused by the change).

const SESSION_TIMEOUT_MS = 30_000; // kafkajs's default sessionTimeout
const COMMIT_TIMEOUT_MS = 5_000; // the broker's offsets.commit.timeout.ms
const EXPIRY_MS = 10 * 60_000;
const OUTAGE_MS = 60_000;

const timedOut = () => markWorthWaitingOut(new KafkaJSProtocolError({ message: 'The request timed out', type: 'REQUEST_TIMED_OUT', code: 7, retriable: true } as unknown as string));

describe('park-by-key on kafkajs, a hold expiry whose state commit times out', () => {
  it('never leaves a kafkajs callback a session long without a heartbeat', async () => {
    const w = world();
    const heartbeatsAt: number[] = [];
    let count = 0;
    Object.defineProperty(w.broker, 'heartbeats', {
      get: () => count,
      set: (v: number) => {
        count = v;
        heartbeatsAt.push(w.clock.now());
      },
    });
    /** Each callback's longest span with no heartbeat, from its start to its end. */
    let longestSilence = 0;
    let produced = false;
    hookConsumers(w, {
      commit: async (offsets) => {
        const now = w.clock.now();
        if (offsets.some((o) => o.topic === consumer.mainTopic) && now >= T0 + EXPIRY_MS && now < T0 + EXPIRY_MS + OUTAGE_MS) {
          if (!produced) {
            produced = true;
            w.produce('k2', 'c');
          }
          await w.clock.sleep(COMMIT_TIMEOUT_MS);
          throw timedOut();
        }
      },
      message: async (payload, run) => {
        const from = w.clock.now();
        const seen = heartbeatsAt.length;
        try {
          await run(payload);
        } finally {
          const marks = [from, ...heartbeatsAt.slice(seen), w.clock.now()];
          for (let i = 1; i < marks.length; i++) longestSilence = Math.max(longestSilence, marks[i]! - marks[i - 1]!);
        }
      },
    });
    w.broker.throwReaction = 'kafkajs';
    w.failOnce.add('k:a');
    w.produce('k', 'a');
    w.produce('k', 'b');
    const retrying = await w.start({ parkedHoldExpiryMs: EXPIRY_MS });
    await w.broker.run({ stopWhen: () => w.events.some((e) => e.type === 'parked') });
    w.broker.deleteRecordsBefore(tier1m!.topic, 0, w.broker.records(tier1m!.topic, 0).length);
    await w.broker.run({ stopWhen: () => w.clock.now() > T0 + EXPIRY_MS + OUTAGE_MS + 120_000 });
    await retrying.stop();
    expect(produced).toBe(true);
    expect(w.handled).toContain('k:b');
    expect(w.handled).toContain('k2:c');
    // Seen: ~33,000 ms inside k2:c's callback, waiting on the lock the expiry timer holds; d25af66^: ~5,000 ms.
    expect(longestSilence).toBeLessThan(SESSION_TIMEOUT_MS);
  });
});
