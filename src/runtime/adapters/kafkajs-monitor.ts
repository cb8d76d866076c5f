import type { MonitorPort } from '../monitor-port';
import { disconnectAfterRun } from './kafkajs-leave';

/** The parts of a kafkajs `Kafka` the monitor uses. */
export interface KafkaJsMonitorLike {
  admin(): {
    connect(): Promise<void>;
    disconnect(): Promise<void>;
    fetchTopicOffsets(topic: string): Promise<{ partition: number; low: string; high: string }[]>;
    fetchOffsets(o: { groupId: string; topics: string[] }): Promise<{ topic: string; partitions: { partition: number; offset: string; metadata: string | null }[] }[]>;
  };
  consumer(config: { groupId: string; sessionTimeout?: number }): {
    connect(): Promise<void>;
    disconnect(): Promise<void>;
    subscribe(s: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
    run(r: { autoCommit: boolean; eachMessage: (p: { partition: number; message: { offset: string; timestamp: string } }) => Promise<void> }): Promise<void>;
    seek(s: { topic: string; partition: number; offset: string }): void;
    pause(t: { topic: string; partitions: number[] }[]): void;
    on(event: string, listener: (event: { payload: { error: unknown; restart: boolean } }) => void): unknown;
    events: { GROUP_JOIN: string; CRASH?: string };
  };
}

/**
 * The monitor's reads with kafkajs: offsets through the admin API; the head records
 * through a consumer in the monitor's own group, sought to each offset, never committing.
 * The monitor never runs two polls at once, so the group has one member at a time.
 * A read kafkajs gives up on (records compressed with a codec it lacks) rejects at once.
 */
export function kafkajsMonitorPort(kafka: KafkaJsMonitorLike, monitorGroup: string, timeoutMs = 15_000): MonitorPort {
  async function withAdmin<T>(work: (admin: ReturnType<KafkaJsMonitorLike['admin']>) => Promise<T>): Promise<T> {
    const admin = kafka.admin();
    await admin.connect();
    try {
      return await work(admin);
    } finally {
      await admin.disconnect();
    }
  }
  return {
    endOffsets: (topic) => withAdmin((admin) => admin.fetchTopicOffsets(topic)),
    committedOffsets: (groupId, topic) => withAdmin(async (admin) => (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]?.partitions ?? []),
    async timestampsAt(topic, offsets, signal) {
      signal?.throwIfAborted();
      const found = new Map<number, number>();
      const wanted = new Map(offsets.map((o) => [o.partition, o.offset]));
      const consumer = kafka.consumer({ groupId: monitorGroup, sessionTimeout: 10_000 });
      await consumer.connect();
      let running: Promise<void> | undefined;
      try {
        // From the beginning: a sought offset that retention deleted meanwhile resets to the log start.
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        await new Promise<void>((resolve, reject) => {
          const onAbort = () => done(signal!.reason);
          const timer = setTimeout(() => done(), timeoutMs);
          function done(error?: unknown): void {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            if (error === undefined) resolve();
            else reject(error);
          }
          if (signal?.aborted) return done(signal.reason);
          signal?.addEventListener('abort', onAbort, { once: true });
          consumer.on(consumer.events.GROUP_JOIN, () => {
            for (const [partition, offset] of wanted) consumer.seek({ topic, partition, offset });
          });
          // A fetch kafkajs cannot decode (a codec it lacks) stops the consumer for good: said at once, not after the timeout.
          if (consumer.events.CRASH !== undefined) {
            consumer.on(consumer.events.CRASH, ({ payload }) => {
              if (!payload.restart) done(payload.error);
            });
          }
          running = consumer.run({
            autoCommit: false,
            eachMessage: async ({ partition, message }) => {
              const offset = wanted.get(partition);
              if (offset === undefined || found.has(partition) || BigInt(message.offset) < BigInt(offset)) return;
              found.set(partition, Number(message.timestamp));
              consumer.pause([{ topic, partitions: [partition] }]);
              if (found.size === wanted.size) done();
            },
          });
        });
      } finally {
        await disconnectAfterRun(consumer, running);
      }
      return found;
    },
  };
}
