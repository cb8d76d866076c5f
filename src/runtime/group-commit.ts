import type { ConsumerPort } from './port';

/**
 * The group's committed offset of a partition (-1 for none), read from the broker; undefined
 * when it cannot be read (whoever asks then trusts nothing it finished before).
 */
export async function groupCommitOf(consumer: ConsumerPort, at: { topic: string; partition: number }): Promise<bigint | undefined> {
  try {
    const [committed] = await consumer.committed(at.topic, [at.partition]);
    return committed === undefined ? undefined : BigInt(committed.offset);
  } catch {
    return undefined;
  }
}
