import type { ConsumerDescriptor } from './descriptor';
import { describeError } from './describe-error';
import { KrtError } from './krt-error';
import type { MonitorPort } from './monitor-port';

/**
 * The monitor's read of its DLQ's topic id at each poll that folds the audit log
 * (monitor-handled-states.ts), or undefined where the port reads no ids. It throws, dropping
 * the poll, when the id changed since the last poll (the DLQ created again): that poll's
 * offsets may be of either topic.
 */
export function createTopicIdRead(consumer: ConsumerDescriptor, port: MonitorPort, onError: (error: unknown) => void): () => Promise<string | undefined> {
  // Cleared once the port answers without an id before it ever answered one: a client that reads none never will,
  // and each read is a request. A port that answered an id reads ids: an answer without one (Kafka's all-zero id
  // during a cluster upgrade, a topic being made again) is that poll's, and the next poll asks again.
  let readsIds = port.topicId !== undefined;
  // The id read last: a poll that cannot read it (a failed read, an answer without one) folds with it. Folded
  // without an id for one poll, a DLQ created again would take its old topic's floor back and its expired count
  // would fall and rise again at the next poll, and kafka_dlq_expired_total (a counter) would count it again.
  let lastId: string | undefined;
  let toldNoId = false;
  // The DLQ's id now, where the port reads ids: an id it cannot read leaves the entries to the id read last (to their
  // marks where none was), said once.
  return async function dlqTopicId(): Promise<string | undefined> {
    if (!readsIds) return undefined;
    let id: string | undefined;
    try {
      id = await port.topicId!(consumer.dlqTopic);
    } catch (error) {
      if (!toldNoId) onError(new KrtError(`the monitor of ${consumer.name} could not read the topic id of ${consumer.dlqTopic} (${describeError(error).message}): it tells the audit entries of a DLQ created again by the id it read last (by their records' marks alone where it read none) until it can`));
      toldNoId = true;
      return lastId;
    }
    if (id !== undefined && lastId !== undefined && id !== lastId) {
      // Created again since the last poll, maybe between this poll's read of the ends and this read: the new id over
      // the old topic's ends would leave out all its entries, and count as expired everything below its log start (a
      // counter: raised for good). This poll is dropped; the next reads the ends and the id again.
      const before = lastId;
      lastId = id;
      throw new KrtError(`${consumer.dlqTopic} was deleted and created again (its topic id is ${id}, not ${before}): this poll's offsets may be of either topic, so its gauges are dropped; the next poll reads them again`);
    }
    if (id !== undefined) lastId = id;
    else if (lastId === undefined) readsIds = false;
    return lastId;
  };
}
