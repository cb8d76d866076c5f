import { KafkaJSProtocolError } from 'kafkajs';
import { COMMIT_PATIENCE_MS, markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { hookConsumers, longestCallbackThrough, world } from './park-by-key-world';

/*
 * Class: a bound that measures the wrong thing (stall: a callback held past the patience and the
 * group session). Attack 41 made the patience count the sends on the clock; the group-commit read
 * added by f96b55b (mainCommitStillOurs, before each send again) is not bounded by it.
 *
 * Scenario: park-by-key on kafkajs, one record on main partition 0 that succeeds, then the group
 * coordinator becomes unavailable for 5 minutes (its __consumer_offsets partition without a
 * leader): each state commit is refused at once with GROUP_COORDINATOR_NOT_AVAILABLE (the kafkajs
 * adapter marks it worth waiting out). The adapter's read of the group's commit goes through
 * kafkajs's admin.fetchOffsets -> cluster.findGroupCoordinator, whose nested retriers retry
 * GROUP_COORDINATOR_NOT_AVAILABLE with kafkajs's default retry (300 ms doubled, 5 retries: about
 * 9.3 s) on each broker of the pool in turn (brokerPool.withBroker swallows each broker's
 * failure): about 9.3 s per broker in the pool (28 s on three) before the read is refused.
 * Modelled here: the read of the main topic's group commit takes 9.3 s, then is refused.
 *
 * Seen: the record's eachMessage callback lasts 38.7 s (a refusal, then four rounds of a short
 * wait and a 9.3 s read refused; the 4th begins at 29.4 s and ends at 38.7 s); with 28 s reads
 * (three brokers) 56.3 s: past COMMIT_PATIENCE_MS and kafkajs's 30 s session, the whole time holding the partition's lock and the fetcher of its broker (every
 * partition that broker leads waits: kafkajs's fetcher drains its worker queue before fetching
 * again). With more brokers, or a read that succeeds late and then a send that takes a request
 * time-out, longer still: each try that begins inside the patience may take a heartbeat, a read
 * and a send, each bounded only by the client's own time-outs. The documented bound ("the next
 * try would still begin within COMMIT_PATIENCE_MS of the first send") is also broken in the
 * other direction: a read that answers after the 30 s is followed by a send past the patience.
 *
 * Code at fault: src/runtime/commit-patience.ts untilAccepted: the clock is checked only before
 * each sleep; `aliveAfterWait` (the heartbeat) and `stillValid` (key-parking.ts
 * mainCommitStillOurs -> consumer().committed -> group-offsets.ts fetchOffsets) run unbounded
 * after it, and a read answered past the patience still leads to a send.
 *
 * Suggested fix: check the clock again after the heartbeat and the read (give up when
 * now() - since > COMMIT_PATIENCE_MS instead of sending), and bound the read by the patience
 * left (a race with options.sleep(remaining) that yields undefined, then gives up), or give the
 * adapter's fetchOffsets a short retry/time-out of its own (kafkajs admin `retry: { retries: 0 }`
 * for this read).
 *
 * Caused by the change (f96b55b adds the read; d25af66 the wait): passes on d25af66^ (longest
 * callback 14.3 s: the refused commit failed the operation at once; the next callback was paced
 * 5 s and its load read the group's commit once, 9.3 s).
 *
 * Fixed: the heartbeat and the read between sends are bounded by the patience left, and the
 * clock is checked again before sending (commit-patience.ts withinPatience).
 */
jest.setTimeout(60_000);

const READ_MS = 9_300;
const OUTAGE_MS = 5 * 60_000;
const notAvailable = () => markWorthWaitingOut(new KafkaJSProtocolError({ message: 'The coordinator is not available', type: 'GROUP_COORDINATOR_NOT_AVAILABLE', code: 15, retriable: true } as unknown as string));

describe('park-by-key (kafkajs), the group-commit read inside a commit wait', () => {
  it('is counted in the patience: the callback is not held past COMMIT_PATIENCE_MS by reads', async () => {
    const w = world();
    let outageFrom: number | undefined;
    const away = () => outageFrom !== undefined && w.clock.now() < outageFrom + OUTAGE_MS;
    hookConsumers(w, {
      commit: () => {
        if (away()) throw notAvailable();
      },
      committed: (read) => async (topic, partitions) => {
        if (away()) {
          await w.clock.sleep(READ_MS);
          throw new Error('KafkaJSNumberOfRetriesExceeded: The coordinator is not available');
        }
        return read(topic, partitions);
      },
    });
    const longest = await longestCallbackThrough(w, (from) => (outageFrom = from), OUTAGE_MS + 60_000);
    expect(w.handled).toContain('k:b');
    // Seen: 38,700 ms (56,300 with 28 s reads). d25af66^: 14,300 ms (5 s paced + the load's one read).
    expect(longest).toBeLessThanOrEqual(COMMIT_PATIENCE_MS + 1_000);
  });
});
