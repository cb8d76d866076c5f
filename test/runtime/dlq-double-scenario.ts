import { DlqSession } from '../../src/dlq/session';
import type { DlqRecord } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

/**
 * A consumer with a 1m and a 10m tier, its topics on the DLQ double (reporting topic ids
 * where asked, as the Confluent client's admin does), and ten dead letters tagged `order`
 * (stamped from `stampFrom` when given).
 */
export function dlqScenario(options: { topicIds?: boolean; stampFrom?: number } = {}): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  double.reportsTopicIds = options.topicIds ?? false;
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  if (options.stampFrom !== undefined) double.stampFrom(options.stampFrom);
  appendDeadLetters(double, consumer, 'order');
  return { consumer, double };
}

/**
 * `count` dead letters keyed `<tag>-<i>` with values `<tag>-value-<i>`, alternating between
 * partitions 0 and 1. Tags of one length ('order', 'other') give records of the same marks
 * when stamped from the same time.
 */
export function appendDeadLetters(double: DlqKafkaDouble, consumer: ConsumerModel, tag: string, count = 10, errorClass = 'DownstreamTimeout'): void {
  for (let i = 0; i < count; i++) {
    double.append(consumer.dlq.name, i % 2, {
      key: `${tag}-${i}`,
      value: `${tag}-value-${i}`,
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(i % 2), [HEADERS.originalOffset]: String(100 + i), [HEADERS.errorClass]: errorClass },
    });
  }
}

/** The values `appendDeadLetters` gives a tag, sorted. */
export const deadLetterValues = (tag: string, count = 10): string[] => Array.from({ length: count }, (_, i) => `${tag}-value-${i}`).sort();

/** The values of the records a new session lists as unhandled, sorted. */
export async function listedValues(double: DlqKafkaDouble, consumer: ConsumerModel): Promise<string[]> {
  const session = await DlqSession.open(double.kafka(), consumer);
  await session.close();
  return session.records.map((r) => r.value!.toString()).sort();
}

/** Records in the order of their values. */
export const byValue = (records: readonly DlqRecord[]): DlqRecord[] => [...records].sort((a, b) => a.value!.toString().localeCompare(b.value!.toString()));
