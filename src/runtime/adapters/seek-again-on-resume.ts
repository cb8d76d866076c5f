import type { TopicPartitionOffset, TopicPartitions } from '../port';

/** The part of a consumer this wrapper touches. */
export interface PauseSeekResume {
  pause(t: TopicPartitions[]): void;
  resume(t: TopicPartitions[]): void;
  seek(s: TopicPartitionOffset): void;
}

/**
 * librdkafka's fetcher, once every partition it serves is paused, looks at them again
 * only about once a second, and a resume does not wake it; a seek does. A tier partition
 * waits paused at its head (pause, then seek back to the head), so on the Confluent
 * client its first due record came 0.9-1.1 s late, every time all partitions waited at
 * once. Here a partition paused and then sought is sought to that same offset again as it
 * resumes: nothing was read while it was paused, so its position does not move, and the
 * fetch starts at once. The client runs the resume and the seek in one round of its
 * pending operations, so no record is delivered between them.
 *
 * `forget()` on a rebalance: the client's positions then come from the group, and a seek
 * of a partition no longer assigned would be kept by the client for a later assignment.
 */
export function seekAgainOnResume(consumer: PauseSeekResume): PauseSeekResume & { forget(): void } {
  const paused = new Set<string>();
  const soughtWhilePaused = new Map<string, TopicPartitionOffset>();
  const each = (t: TopicPartitions[], visit: (key: string) => void): void => {
    for (const { topic, partitions } of t) for (const partition of partitions) visit(keyOf(topic, partition));
  };
  return {
    pause(t) {
      consumer.pause(t);
      each(t, (key) => paused.add(key));
    },
    seek(s) {
      consumer.seek(s);
      const key = keyOf(s.topic, s.partition);
      if (paused.has(key)) soughtWhilePaused.set(key, s);
    },
    resume(t) {
      consumer.resume(t);
      each(t, (key) => {
        const sought = soughtWhilePaused.get(key);
        paused.delete(key);
        soughtWhilePaused.delete(key);
        if (sought) seekToWake(sought);
      });
    },
    forget() {
      paused.clear();
      soughtWhilePaused.clear();
    },
  };

  function seekToWake(s: TopicPartitionOffset): void {
    try {
      consumer.seek(s);
    } catch {
      // The seek only wakes the fetcher: the partition is resumed either way, its first
      // record at worst a second later.
    }
  }
}

function keyOf(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
