import { replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

/**
 * A broker appends a produce request partition by partition: when one partition's batch is
 * refused for good (a record larger than the tier's max.message.bytes), the others are
 * written, and the send fails. A replay step that publishes to several partitions at once
 * then failed unaudited and uncommitted with some of its records published, and every try
 * published those again (attack on #25). A step publishes, audits and commits one target
 * partition at a time, so what a refusal leaves published is also recorded as handled, and
 * the replay stops there, naming the records refused.
 */
const clock = { now: () => 0, sleep: async () => {} };

function dlqWith(values: readonly { originalPartition: number; bytes: number }[]): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  values.forEach(({ originalPartition, bytes }, i) =>
    double.append(consumer.dlq.name, 0, {
      key: `order-${i}`,
      value: 'x'.repeat(bytes),
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(originalPartition), [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'DownstreamTimeout' },
    }),
  );
  return { consumer, double };
}

/** How many times each DLQ record reached the tier (by the x-replayed-from-dlq id). */
function publishedTimes(double: DlqKafkaDouble, consumer: ConsumerModel): Record<string, number> {
  const times: Record<string, number> = {};
  for (const m of double.messages(consumer.tiers[0]!.name)) {
    const id = String(m.headers[HEADERS.replayedFromDlq]).split('/')[1]!;
    times[id] = (times[id] ?? 0) + 1;
  }
  return times;
}

describe('a replay whose step goes to several partitions, one of which refuses its batch for good', () => {
  it.each([
    ['the refused partition last', [{ originalPartition: 0, bytes: 10 }, { originalPartition: 1, bytes: 50_000 }, { originalPartition: 2, bytes: 10 }]],
    ['the refused partition first', [{ originalPartition: 0, bytes: 50_000 }, { originalPartition: 1, bytes: 10 }, { originalPartition: 2, bytes: 10 }]],
  ])('publishes no record twice over every try, and says which records the broker refused (%s)', async (_, values) => {
    const { consumer, double } = dlqWith(values);
    double.maxBatchBytes = 20_000;
    const kafka = double.kafka();
    const refused = values.findIndex((v) => v.bytes > 20_000);
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const session = await DlqSession.open(kafka, consumer);
      try {
        await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 100, by: 'ana', clock });
        outcomes.push('replayed');
      } catch (error) {
        outcomes.push((error as Error).message);
      } finally {
        await session.close();
      }
    }
    const left = await DlqSession.open(kafka, consumer);
    await left.close();
    const published = publishedTimes(double, consumer);
    // The refusal stops the replay at that batch: what was published before it is recorded as
    // handled (never published again), the rest is left in the DLQ for the operator to discard or fix.
    expect({
      outcomes,
      publishedOnce: Object.values(published).every((times) => times === 1),
      handledOrLeft: [...Object.keys(published), ...left.records.map((r) => r.id)].sort(),
      refusedLeft: left.records.some((r) => r.id === `0:${refused}`),
    }).toEqual({
      outcomes: Array(3).fill(expect.stringContaining(`0:${refused}`)),
      publishedOnce: true,
      handledOrLeft: values.map((_, i) => `0:${i}`),
      refusedLeft: true,
    });
    expect(outcomes[0]).toContain('MESSAGE_TOO_LARGE');
  });
});
