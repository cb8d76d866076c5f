import type { ConsumerPort } from './port';

/**
 * A partition's log start (the first offset retention and delete-records left), as the port
 * reads it; undefined when the port cannot tell or the read is refused: then nothing is
 * concluded from it.
 */
export async function readLogStart(consumer: ConsumerPort, topic: string, partition: number): Promise<bigint | undefined> {
  const starts = await consumer.logStartOffsets?.(topic, [partition]).catch(() => undefined);
  const start = starts?.find((s) => s.partition === partition)?.offset;
  return start === undefined ? undefined : BigInt(start);
}
