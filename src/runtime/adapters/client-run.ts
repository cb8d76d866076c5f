import type { EachMessagePayload, PortMessage, RunOptions } from '../port';
import { withOwnHeaders } from './client-headers';

/** The eachBatch payload of kafkajs, which the Confluent client's KafkaJS API copies. */
export interface ClientBatchPayload {
  batch: { topic: string; partition: number; messages: PortMessage[]; highWatermark?: string };
  resolveOffset(offset: string): void;
  heartbeat(): Promise<void>;
  isRunning(): boolean;
  isStale(): boolean;
}

/** What both clients' `run()` take, commits aside (each adapter says how it turns auto-commit off). */
export interface ClientRunOptions {
  eachMessage?: (p: EachMessagePayload) => Promise<void>;
  eachBatch?: (p: ClientBatchPayload) => Promise<void>;
  eachBatchAutoResolve?: boolean;
  partitionsConsumedConcurrently?: number;
}

/**
 * A port's run options as both clients take them. `topicIdOf`: the id to name on each payload
 * of a topic (the Confluent adapter's polled one, polled-topic-ids.ts); none where it says none.
 */
export function clientRunOptions(run: RunOptions, topicIdOf: (topic: string) => string | undefined = () => undefined): ClientRunOptions {
  const named = (topic: string): { topicId?: string } => {
    const topicId = topicIdOf(topic);
    return topicId === undefined ? {} : { topicId };
  };
  const concurrency = run.partitionsConsumedConcurrently ? { partitionsConsumedConcurrently: run.partitionsConsumedConcurrently } : {};
  if ('eachMessage' in run) {
    const { eachMessage } = run;
    return {
      eachMessage: (payload) => {
        withOwnHeaders(payload.message);
        const id = named(payload.topic);
        return eachMessage(id.topicId === undefined ? payload : { ...payload, ...id });
      },
      ...concurrency,
    };
  }
  const { eachBatch } = run;
  return {
    // The runtime resolves each record it took; the client fetches again from the first one it did not.
    eachBatchAutoResolve: false,
    eachBatch: ({ batch, resolveOffset, heartbeat, isRunning, isStale }) =>
      eachBatch({
        topic: batch.topic,
        partition: batch.partition,
        messages: batch.messages.map(withOwnHeaders),
        resolveOffset,
        heartbeat,
        isStale: () => !isRunning() || isStale(),
        ...knownHighWatermark(batch.highWatermark),
        ...named(batch.topic),
      }),
    ...concurrency,
  };
}

/** The batch's high watermark when the client knows it: the Confluent client says '-1001' when it does not. */
function knownHighWatermark(highWatermark: string | undefined): { highWatermark?: string } {
  return highWatermark !== undefined && /^\d+$/.test(highWatermark) ? { highWatermark } : {};
}
