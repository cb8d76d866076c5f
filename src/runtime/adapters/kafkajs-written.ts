import type { OutgoingMessage } from '../port';
import { UnknownPartitionError } from '../publish-failure';

/**
 * kafkajs's send() resolves without writing a record whose partition the topic lacks (its
 * metadata names no leader for it, so the record joins no request): that would be a lost
 * record. Every record sent to a partition of its own must be among the partitions kafkajs
 * says it wrote. Used by the runtime's adapter and the DLQ tools' producers.
 */
export function checkWritten(records: readonly { topic: string; messages: readonly Pick<OutgoingMessage, 'partition'>[] }[], written: readonly { topicName: string; partition: number }[]): void {
  for (const { topic, messages } of records) {
    for (const { partition } of messages) {
      if (partition !== undefined && !written.some((w) => w.topicName === topic && w.partition === partition)) throw new UnknownPartitionError(topic, partition);
    }
  }
}
