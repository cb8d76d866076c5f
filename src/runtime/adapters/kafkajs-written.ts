import type { OutgoingMessage } from '../port';
import { UnknownPartitionError } from '../publish-failure';

/** A record kafkajs says it wrote: its topic and partition. */
export interface Written {
  readonly topicName: string;
  readonly partition: number;
}

type Records = readonly { topic: string; messages: readonly OutgoingMessage[] }[];

/**
 * kafkajs's send() resolves without writing a record whose partition the topic lacks (its
 * metadata names no leader for it, so the record joins no request), and its retry of a request
 * keeps each broker's first answer, so a partition whose leader moved to a broker that answered
 * before is left out: both would be lost records. Every record sent to a partition of its own
 * must be among the partitions kafkajs says it wrote. Used by the runtime's adapter and the DLQ
 * tools' producers.
 */
export function checkWritten(records: readonly { topic: string; messages: readonly Pick<OutgoingMessage, 'partition'>[] }[], written: readonly Written[]): void {
  for (const { topic, messages } of records) {
    for (const { partition } of messages) {
      if (partition !== undefined && !written.some((w) => w.topicName === topic && w.partition === partition)) throw new UnknownPartitionError(topic, partition);
    }
  }
}

/** kafkajs wrote nothing of a request of one record that its partitioner placed. */
export class NotWrittenError extends Error {
  override name = 'KafkaRetryNotWrittenError';
  constructor(readonly topic: string) {
    super(`kafkajs answered a send to ${topic} without writing the record: it goes out again`);
  }
}

/**
 * Sends records and checks that each was written. A record without a partition (placed by
 * kafkajs's partitioner: a tier with fewer partitions than its main topic) cannot be told
 * apart in an answer that names partitions, so each goes in a request of its own, where any
 * partition of its topic written is its; those records are rare, the others go together.
 */
export async function sendEachChecked(send: (records: Records) => Promise<readonly Written[]>, records: Records): Promise<void> {
  const placed = records.map(({ topic, messages }) => ({ topic, messages: messages.filter((m) => m.partition !== undefined) })).filter((r) => r.messages.length > 0);
  if (placed.length > 0) checkWritten(placed, await send(placed));
  for (const { topic, messages } of records) {
    for (const message of messages.filter((m) => m.partition === undefined)) {
      const written = await send([{ topic, messages: [message] }]);
      if (!written.some((w) => w.topicName === topic)) throw new NotWrittenError(topic);
    }
  }
}
