import { Registry } from 'prom-client';
import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';

/**
 * Found by attack 17: LOST records, an old log's offset committed onto a new one by a retry.
 *
 * Scenario: the group coordinator refuses commits for about a minute. a at 0 and b at 1 run, big
 * at 2 is held (no copy fits), its partition paused. Meanwhile the main topic is deleted and
 * created again (no rebalance); the operator has not raised the limit yet. The coordinator comes
 * back; later four records land in the new log, then a deploy.
 *
 * Seen: the group's commit of the new, empty log is 2 once the outage ends, and after the deploy
 * n0 and n1 never run. The commit of 2 (a and b done, big holding the rest) was refused before
 * the recreation and kept for the retry (offset-committer.ts: on a refusal `pending.set(...)`,
 * then `schedule()`); the retry sends the stored offset after the recreation. The partition is
 * paused for its hold, and main-pipeline.ts promises nothing of it is committed until its first
 * batch after the resume has been judged (publishInBackground returns before markProgress), but
 * that gate is a caller's skip of markProgress: a commit already queued in the committer goes out.
 * (Without the held record, the same outage and recreation land the same 2 on the new log and lose
 * the same records: tried while writing this, not kept.)
 *
 * Code at fault: src/runtime/offset-committer.ts, the refused commit's retry of a stored offset
 * (`pending`), which no later knowledge of the partition revisits; with
 * src/runtime/main-pipeline.ts's commit gate living outside the committer.
 *
 * Class: an offset of the old log committed onto the new one (attack 9/10/12/14/15/16's family),
 * by a path the pipeline's gate does not see.
 *
 * Fix I'd make: for a pipelined partition, retry by reading progress.committable() again, not a
 * stored offset, and move the gate into the committer: a partition paused for a hold or awaiting
 * its anchor's judgement is held back (`commitsHeld(progress)`, skipped by sendPending, its
 * pending offset dropped). What a paused partition's retry would have committed waits for the
 * judgement; a recreation found there starts over (startsOver) before anything goes out.
 *
 * Fixed: a partition paused for a hold is withheld in the committer (offset-committer withhold):
 * nothing more of it is marked, and a refused commit of it is not tried again, until its log is judged.
 */
let maxMessageBytes = 2_000;
function refusingLargeCopies(broker: MemoryBroker): KafkaPort {
  return checkedSends(broker, (records) => {
    if (records.some((r) => r.messages.some((m) => messageBytes(m) > maxMessageBytes))) throw tooLargeError();
  });
}

describe('unordered: a main topic created again (no rebalance) while a record is held and the coordinator refuses commits', () => {
  it('commits nothing of the old log onto the new one once the coordinator is back, so a deploy runs each new record', async () => {
    maxMessageBytes = 2_000;
    const consumer = billingDescriptor();
    const clock = new VirtualClock(1_000_000);
    const broker = new MemoryBroker(clock);
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const events: RetryEvent[] = [];
    const succeeded: string[] = [];
    const start = async () => {
      const retrying = createRetryingConsumer(consumer, {
        kafka: refusingLargeCopies(broker),
        clock,
        registry: new Registry(),
        random: () => 0.5,
        onEvent: (e) => events.push(e),
        handler: async (record: ConsumedRecord) => {
          if (record.topic === consumer.mainTopic && valueOf(record).startsWith('big')) throw httpError(503);
          succeeded.push(valueOf(record));
        },
      });
      await retrying.start();
      return retrying;
    };
    const produce = (value: string) => broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from(value), partition: 0 });
    produce('a');
    produce('b');
    produce(`big${'x'.repeat(1_897)}`); // offset 2: fits the main topic, no copy fits
    broker.refuseCommits(consumer.groups.main, 600); // about a minute of refusals, a retry per 100 ms
    let retrying = await start();
    await broker.run({ until: clock.now() + 20_000, maxSteps: 5_000 }).catch(() => undefined);
    expect({ held: events.filter((e) => e.type === 'publish-held').length, committed: broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0) }).toEqual({ held: 1, committed: undefined });

    broker.recreateTopic(consumer.mainTopic, { rebalance: false });
    await broker.run({ until: clock.now() + 120_000, maxSteps: 5_000 }).catch(() => undefined); // the coordinator comes back
    // Seen: 2, the old log's position, committed onto the new (empty) log by the refused commit's retry.
    const committedOnNewLog = broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0);
    for (let i = 0; i < 4; i++) produce(`n${i}`); // the new log's offsets 0 to 3
    await retrying.stop();
    retrying = await start(); // a deploy reads the new log from the group's commit
    await broker.run({ until: clock.now() + 60_000, maxSteps: 5_000 }).catch(() => undefined);
    await retrying.stop();
    expect({ pastNewLogStart: (committedOnNewLog ?? 0) > 0, ran: succeeded.filter((v) => v.startsWith('n')) }).toEqual({ pastNewLogStart: false, ran: ['n0', 'n1', 'n2', 'n3'] });
  }, 30_000);
});
