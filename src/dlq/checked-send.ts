import { Partitioners } from 'kafkajs';
import type { Message, PartitionMetadata, Producer } from 'kafkajs';
import { checkWritten } from '../runtime/adapters/kafkajs-written';
import { UnknownPartitionError } from '../runtime/publish-failure';
import { DlqError } from './session';

/**
 * Sends a DLQ tool's records (a replay's, the audit log's) so that none can go missing while
 * send() resolves. kafkajs answers with the partitions it wrote and leaves out a record whose
 * partition the topic lacks; on a retry it also leaves out a partition whose leader moved to a
 * broker that answered before (sendMessages.js keeps each broker's first answer). Only a record
 * sent to a named partition can be checked against that answer, so each record without one
 * gets the partition kafkajs's default partitioner gives it for the topic's partition count in
 * the spec (the placement kafkajs would choose on a topic as the spec has it).
 */
export async function sendChecked(producer: Producer, topic: string, partitions: number, messages: readonly Message[]): Promise<void> {
  const placed = withPartitions(topic, partitions, messages);
  try {
    checkWritten([{ topic, messages: placed }], await producer.send({ topic, acks: -1, messages: placed }));
  } catch (error) {
    if (!(error instanceof UnknownPartitionError)) throw error;
    throw new DlqError(`kafkajs did not write the records for ${topic} partition ${error.partition} (the topic has no such partition, or a retry left them out); nothing of this step is recorded as done: run the command again once the topic has its ${partitions} partitions`, { cause: error });
  }
}

function withPartitions(topic: string, partitions: number, messages: readonly Message[]): (Message & { partition: number })[] {
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata: PartitionMetadata[] = Array.from({ length: partitions }, (_, partitionId) => ({ partitionId, leader: 0, replicas: [0], isr: [0], partitionErrorCode: 0 }));
  return messages.map((message) => ({ ...message, partition: message.partition ?? partitioner({ topic, partitionMetadata, message }) }));
}
