import { attackWorld, consumer } from './attack21-world';

/**
 * Attack 21 (retention deletes parked records), finding 2: STALL.
 *
 * Scenario: key k's record a (offset 0) fails (k held, its copy in the 1m tier); k's record b
 * (offset 1) parks behind it. The consumer stops, cleanly; the stored state has b parked and
 * the commit at 1. Retention deletes offsets 0 and 1 while it is down; no new record comes to
 * the partition (a quiet partition, or a producer that moved on to other partitions). On
 * restart the one read of the log start is refused (the admin client connects lazily, on
 * first use: a broker that is not ready yet, a timeout). `krt dlq replay` then puts an old
 * record of k back into the 1m tier.
 *
 * Seen: nothing ever reads the log start again. a's copy runs and releases k, the drain meets b
 * missing and waits for it, the main partition reads from its log start and finds nothing, so
 * no gap ever tells. b stays parked, the main partition's commit stays at 1 for good (the lag
 * monitor shows the partition stuck), and the replay of k waits its turn behind b for good (its
 * tier partition's commit held back with it) -- until some unrelated record happens to be
 * produced to this partition, or the process restarts.
 *
 * Code at fault: src/runtime/key-parking.ts giveUpBelowLogStart: "a refused read tells nothing"
 * and nothing asks again; load() reads it once. docs/runtime.md admits the quiet partition only
 * for retention *after* the load ("gives nothing a reason to look"); here retention came before
 * the load, the case the load-time read was added for, and one transient refusal turns it back
 * into the stall that commit 1f39238 fixed.
 *
 * Class: a best-effort read with no retry, on the only path that can see the condition.
 *
 * Fix I'd make: when the read is refused (or, more generally, while a parked record is missing
 * and a drain finds its key otherwise free), read the log start again later (options.retryLater,
 * as a refused pause is), under the partition's lock, and give up what lies below it then.
 */
describe('attack 21: the log-start read refused once when a state loads after retention', () => {
  it('reads it again: the deleted parked record is given up, the commit moves on, the replay of its key runs', async () => {
    const w = attackWorld({ reaction: 'confluent' });
    w.fails.set('k:a', 1);
    w.produce('k', 'a'); // offset 0: k held
    w.produce('k', 'b'); // offset 1: parked
    let retrying = await w.start();
    await w.runFor(10_000, () => w.ofType('parked').length === 1);
    await retrying.stop();
    expect([...w.parkState().parked.keys()]).toEqual([1n]);

    w.broker.deleteRecordsBefore(consumer.mainTopic, 0, 2);
    let refusals = 1;
    w.setLogStart({
      lie: (_p, truth) => {
        if (refusals-- > 0) throw new Error('KafkaJSConnectionError: Connection timeout');
        return truth;
      },
    });
    retrying = await w.start();
    await w.runFor(5 * 60_000);
    // An old record of k, replayed from the DLQ into the 1m tier, due now.
    w.replay('k', 'z', 0);
    await w.runFor(24 * 3_600_000);
    await retrying.stop();

    expect(w.succeeded()).toContain('k:a'); // k's hold released
    expect(w.succeeded()).toContain('k:z'); // fails now: the replay waits its turn behind b for good
    expect(w.ofType('parked-records-deleted')).toHaveLength(1);
    expect(w.committed()).toBe(2); // stays at 1: the partition's commit waits for a record Kafka deleted
  });
});
