import { Registry } from 'prom-client';
import type { RetryEvent } from '../../src/runtime/events';
import type { ConsumerPort, KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';

/**
 * Found by attack 18 (its client-refusals property, seed 18, shrunk): a partition held again after
 * a rebalance is not paused; its batches spin, fetched again and dropped with no time passing.
 *
 * Scenario (unordered, in-memory broker with kafkajs's reaction to a throw, one publish in flight):
 * big fails and no copy of it fits its tier or the DLQ: it is held, its partition paused; small
 * waits behind it. A rebalance comes (the member keeps the partition); its resume of the held
 * partition is refused once (the Confluent client refuses a resume while it rejoins: exactly when a
 * rebalance comes). big runs again from the commit and is held again at once (the DLQ's limit is
 * still low).
 *
 * Seen: the simulation never settles (20,000 steps, the clock standing still): batch after batch
 * of the partition is handed out and ends at once. forget() left the progress in heldPaused while
 * its resumeHeld waits RESUME_RETRY_MS to try the refused resume again, so holdAt and the batch
 * loop see `heldPaused.has(progress)` and neither pauses nor withholds the partition: the batch
 * breaks at `progress.holding`, resolving nothing, and the client fetches the same records again
 * at once, for as long as the resume is refused (a whole rejoin) and on a real client as fast as
 * it can fetch. Nothing of the partition is withheld meanwhile either.
 *
 * Code at fault: src/runtime/main-pipeline.ts forget() (`resumeHeld(progress)` keeps the progress
 * in heldPaused until a resume is taken) with holdAt / onBatch's `if (!heldPaused.has(progress))
 * holdPaused(progress)`: "paused" and "a resume after a rebalance still pending" share one set.
 *
 * Class: one flag for two states (a stale "paused" mark across a rebalance), a busy loop while a
 * client call is refused.
 *
 * Fix I'd make: forget() takes the progress out of heldPaused at once and retries its resume apart
 * (a set of its own, cancelled when the partition is held and paused again: a pause after the
 * pending resume must win, so the retry must not resume a partition paused since).
 *
 * Fixed: a rebalance moves held partitions to resumeOwed, whose refused resume is tried again
 * unless a new hold pauses the partition first.
 */
let maxMessageBytes = 2_000;

describe('unordered: a held partition kept through a rebalance whose resume the client refuses once, held again at once', () => {
  it('waits paused for the held copy, not fetched again and again', async () => {
    maxMessageBytes = 2_000;
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    broker.throwReaction = 'kafkajs';
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const refusing = { resumes: 0, refused: 0 };
    const sends = checkedSends(broker, (records) => {
      if (records.some((r) => r.messages.some((m) => messageBytes(m) > maxMessageBytes))) throw tooLargeError();
    });
    let batches = 0;
    const kafka: KafkaPort = {
      producer: sends.producer,
      consumer: (groupId, options): ConsumerPort => {
        const inner = sends.consumer(groupId, options);
        return {
          ...inner,
          connect: () => inner.connect(),
          disconnect: () => inner.disconnect(),
          subscribe: (s) => inner.subscribe(s),
          pause: (p) => inner.pause(p),
          seek: (p) => inner.seek(p),
          commitOffsets: (o) => inner.commitOffsets(o),
          committed: (t, p) => inner.committed(t, p),
          carriesCommitMetadata: inner.carriesCommitMetadata,
          onRebalance: (l) => inner.onRebalance(l),
          resume: (p) => {
            if (refusing.resumes > 0) {
              refusing.resumes--;
              refusing.refused++;
              throw new Error('Erroneous state');
            }
            inner.resume(p);
          },
          run: (run) => ('eachBatch' in run ? inner.run({ ...run, eachBatch: (b) => (batches++, run.eachBatch(b)) }) : inner.run(run)),
        };
      },
    };
    const events: RetryEvent[] = [];
    const retrying = createRetryingConsumer(consumer, {
      kafka,
      clock,
      registry: new Registry(),
      random: () => 0.5,
      maxPublishesInFlight: 1,
      commit: { intervalMs: 100, maxRecords: 4 },
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        if (record.topic === consumer.mainTopic && valueOf(record).startsWith('big')) throw httpError(503);
      },
    });
    const produce = (key: string, value: string) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
    produce('k', `big${'x'.repeat(1_897)}`); // fits the main topic, no copy fits
    produce('s', 'small');
    await retrying.start();
    await broker.run({ until: clock.now() + 60_000, maxSteps: 20_000 });
    expect(events.filter((e) => e.type === 'publish-held').length).toBe(1);

    refusing.resumes = 1; // the client refuses the rebalance's resume once
    broker.rebalance(consumer.groups.main);
    const before = batches;
    // Seen: DefectError, the simulation did not settle within 20000 steps (batches handed out with the clock standing still).
    const settled = await broker.run({ until: clock.now() + 60_000, maxSteps: 20_000 }).then(() => true, () => false);
    const after = batches - before;
    let stopped = false;
    const stopping = retrying.stop().finally(() => (stopped = true));
    await broker.run({ until: clock.now() + 60_000, maxSteps: 20_000, stopWhen: () => stopped }).catch(() => undefined);
    await stopping;
    expect({ refused: refusing.refused, settled, held: events.filter((e) => e.type === 'publish-held').length }).toEqual({ refused: 1, settled: true, held: 2 });
    expect(after).toBeLessThan(100);
  }, 30_000);
});
