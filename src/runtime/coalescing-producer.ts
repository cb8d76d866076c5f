import type { OutgoingMessage, ProducerPort } from './port';
import { publishFailureReason } from './publish-failure';
import type { PublishFailureReason } from './publish-failure';

/**
 * The refusals that may be about one copy of the request only: a partition its destination
 * lacks, its size, or its topic (an ACL on the DLQ missing must not stop the tier publishes
 * sent beside it).
 */
const SPLIT_ON = new Set<PublishFailureReason>(['unknown-partition', 'too-large', 'not-authorized']);

interface Queued {
  readonly topic: string;
  readonly messages: OutgoingMessage[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * One request in flight at a time, and everything sent meanwhile goes out together in
 * the next one. The producer is idempotent with one request in flight, so concurrent
 * sends wait in line anyway; coalescing turns a line of N round trips into one. Each
 * send resolves with its request's acknowledgement (acks=-1).
 */
export function coalescingProducer(producer: ProducerPort): ProducerPort {
  let queue: Queued[] = [];
  let sending = false;

  async function request(entries: readonly Queued[]): Promise<void> {
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const { topic, messages } of entries) {
      const list = byTopic.get(topic);
      if (list) list.push(...messages);
      else byTopic.set(topic, [...messages]);
    }
    const records = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    if (producer.sendBatch) await producer.sendBatch(records);
    else for (const record of records) await producer.send(record);
  }

  async function drain(): Promise<void> {
    sending = true;
    while (queue.length > 0) {
      const entries = queue;
      queue = [];
      try {
        await request(entries);
        for (const e of entries) e.resolve();
      } catch (error) {
        // A refusal of the whole request is no verdict on each copy in it: a partition one
        // record's destination lacks, a batch over max.message.bytes (the broker judges a
        // partition's whole batch) when each copy alone fits, or one topic the principal may
        // not write. Send them one by one to learn whose it is, so no neighbour is
        // dead-lettered, held or stopped for another's size, partition or topic.
        if (entries.length > 1 && SPLIT_ON.has(publishFailureReason(error))) await oneByOne(entries);
        else for (const e of entries) e.reject(error);
      }
    }
    sending = false;
  }

  async function oneByOne(entries: readonly Queued[]): Promise<void> {
    for (const e of entries) {
      try {
        await request([e]);
        e.resolve();
      } catch (error) {
        e.reject(error);
      }
    }
  }

  return {
    connect: () => producer.connect(),
    disconnect: () => producer.disconnect(),
    send: ({ topic, messages }) =>
      new Promise<void>((resolve, reject) => {
        queue.push({ topic, messages, resolve, reject });
        if (!sending) void drain();
      }),
  };
}
