import { TopicIds } from '../log-ids';

/**
 * Topic ids read by polling, for a client whose records name no topic id (the Confluent
 * client: librdkafka sees a topic's id change in its metadata and only logs it, reading the new
 * log on from the old log's position). Each subscribed topic's id is read at the start of the
 * run and every `intervalMs`; the adapter names the id read last on every payload, so the
 * runtime takes the records it delivers after a change for a new log (log-ids.ts), and
 * `onChange` wakes the topic's partitions, as a partition that reads nothing more (its new log
 * read past the records it has) would otherwise never deliver one to be judged.
 *
 * An unread id (a failed read, a topic deleted and not yet created again, the zero id) changes
 * nothing; an id read before and since replaced (a broker answering from stale metadata) is not
 * taken for a newer one.
 */
export interface PolledTopicIds {
  /** Reads the ids now, then every interval, until stop(). */
  start(topics: readonly string[]): void;
  /** The topic's id read last, in Kafka's spelling; undefined before one was read. */
  idOf(topic: string): string | undefined;
  stop(): void;
}

export interface PolledTopicIdsOptions {
  /** The topics' ids in Kafka's spelling, in one request; a topic left out tells none. */
  readonly read: (topics: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  /** 0: never polled, no payload names an id. */
  readonly intervalMs: number;
  /** The topic was deleted and created again: its id changed. */
  readonly onChange: (topic: string) => void;
}

export function polledTopicIds(options: PolledTopicIdsOptions): PolledTopicIds {
  const ids = new TopicIds();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  let stopped = false;

  async function poll(topics: readonly string[]): Promise<void> {
    // One request for all (a deleted topic fails it: read again at the next poll, once it is created again).
    const read = await options.read(topics).catch(() => new Map<string, string>());
    if (stopped) return;
    for (const topic of topics) if (ids.seen(topic, read.get(topic)) === 'new-log') options.onChange(topic);
    timer = setTimeout(() => void poll(topics), options.intervalMs).unref();
  }

  return {
    start(topics) {
      if (options.intervalMs <= 0 || started || stopped) return;
      started = true;
      void poll(topics);
    },
    idOf: (topic) => ids.idOf(topic),
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
