import { KafkaJSRequestTimeoutError } from 'kafkajs';
import { COMMIT_PATIENCE_MS, markWorthWaitingOut } from '../../src/runtime/commit-patience';
import { consumer, hookConsumers, longestCallbackThrough, world } from './park-by-key-world';

/*
 * Class: a bound that measures the wrong thing (stall: a callback held far past the group session).
 *
 * Scenario: park-by-key, one record on partition 0 that succeeds. The group coordinator's broker
 * stops answering (a broker hung or partitioned away, not yet marked dead): every commit
 * request of the main topic times out after kafkajs's `requestTimeout` (30 s, its default) with a
 * KafkaJSRequestTimeoutError, for 10 minutes; then commits are accepted again.
 *
 * Seen (on d25af66): the record's eachMessage callback stays in untilAccepted for 356 s of
 * simulated time (11 sends of 30 s each plus 26.3 s of waits), the whole time holding the
 * partition's lock and, on kafkajs, the client's callback: its group session (30 s) passes 10
 * times over, heartbeats go to the hung coordinator. COMMIT_PATIENCE_MS is 30 s, but
 * untilAccepted counts only its sleeps (`waited += ms`), never the time a send took to be
 * refused. On d25af66^ the callback failed after the one send (30 s) and the record was
 * handed back (paced: 35 s per callback, the record ran again about once per 35 s instead).
 *
 * Code at fault: src/runtime/commit-patience.ts untilAccepted: `waited` is the sum of
 * backoffMs, not the elapsed time since the first send; and KafkaJSRequestTimeoutError
 * (REQUEST_TIMED_OUT, Confluent ERR__TIMED_OUT: each a refusal that itself took a full request
 * timeout) is on the whitelist. The Confluent client's commit timeout is its own (librdkafka
 * waits for the coordinator), so the same applies there.
 *
 * Suggested fix: measure the patience on a clock (`now()` at the first send; give up when
 * `now() - start + ms > COMMIT_PATIENCE_MS`), and/or stop at a timed-out refusal that already
 * took longer than the remaining patience.
 *
 * Caused by the change (d25af66): on d25af66^ the callback lasted one request (30 s).
 *
 * Fixed: the patience is measured on the clock from the first send (commit-patience.ts
 * untilAccepted), and only the state's commit waits, so one operation waits once.
 */
jest.setTimeout(60_000);

const REQUEST_TIMEOUT_MS = 30_000;
const OUTAGE_MS = 10 * 60_000;

describe('park-by-key, a coordinator whose commit requests time out', () => {
  it('gives up waiting on a commit within the commit patience (plus the request in flight), not patience + 10 requests', async () => {
    const w = world();
    let outageFrom: number | undefined;
    hookConsumers(w, {
      commit: async (offsets) => {
        if (offsets.some((o) => o.topic === consumer.mainTopic) && outageFrom !== undefined && w.clock.now() < outageFrom + OUTAGE_MS) {
          await w.clock.sleep(REQUEST_TIMEOUT_MS);
          throw markWorthWaitingOut(new KafkaJSRequestTimeoutError('Request OffsetCommit(key: 8, version: 5) timed out')); // as the kafkajs adapter marks it
        }
      },
    });
    const longest = await longestCallbackThrough(w, (from) => (outageFrom = from), OUTAGE_MS + 60_000);
    expect(w.handled).toContain('k:b');
    // Seen: 356,300 ms (11 sends of 30 s, 26.3 s of waits); d25af66^: 35,000 ms (one send, then paced).
    expect(longest).toBeLessThanOrEqual(COMMIT_PATIENCE_MS + REQUEST_TIMEOUT_MS);
  });
});
