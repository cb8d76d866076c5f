import { SPRING_DLT_HEADERS } from '../naming/headers';
import { truncate } from './headers';

/**
 * Spring Kafka's dead-letter headers (R10) with Spring's encodings, so JVM tooling reads
 * our DLQ records: the partition as a 4-byte big-endian int, offset and timestamp as
 * 8-byte big-endian longs, the rest as UTF-8 text.
 */
export function encodeSpringDltHeaders(h: {
  originalTopic: string;
  originalPartition: number;
  originalOffset: string;
  originalTimestamp: number;
  consumerGroup: string;
  exceptionFqcn: string;
  exceptionMessage: string;
  stackTrace?: string;
}): Record<string, Buffer> {
  const partition = Buffer.alloc(4);
  partition.writeInt32BE(h.originalPartition);
  const offset = Buffer.alloc(8);
  offset.writeBigInt64BE(BigInt(h.originalOffset));
  const timestamp = Buffer.alloc(8);
  timestamp.writeBigInt64BE(BigInt(Math.trunc(h.originalTimestamp)));
  return {
    [SPRING_DLT_HEADERS.originalTopic]: Buffer.from(h.originalTopic, 'utf8'),
    [SPRING_DLT_HEADERS.originalPartition]: partition,
    [SPRING_DLT_HEADERS.originalOffset]: offset,
    [SPRING_DLT_HEADERS.originalTimestamp]: timestamp,
    [SPRING_DLT_HEADERS.originalConsumerGroup]: Buffer.from(h.consumerGroup, 'utf8'),
    [SPRING_DLT_HEADERS.exceptionFqcn]: Buffer.from(h.exceptionFqcn, 'utf8'),
    [SPRING_DLT_HEADERS.exceptionMessage]: Buffer.from(truncate(h.exceptionMessage), 'utf8'),
    ...(h.stackTrace !== undefined ? { [SPRING_DLT_HEADERS.exceptionStacktrace]: Buffer.from(h.stackTrace, 'utf8') } : {}),
  };
}

/** Reads Spring's headers back; a header of the wrong size reads as absent. */
export function decodeSpringDltHeaders(headers: Readonly<Record<string, Buffer | string | undefined>>) {
  const buf = (name: string) => {
    const v = headers[name];
    return v === undefined ? undefined : Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8');
  };
  const partition = buf(SPRING_DLT_HEADERS.originalPartition);
  const offset = buf(SPRING_DLT_HEADERS.originalOffset);
  const timestamp = buf(SPRING_DLT_HEADERS.originalTimestamp);
  return {
    originalTopic: buf(SPRING_DLT_HEADERS.originalTopic)?.toString('utf8'),
    originalPartition: partition?.length === 4 ? partition.readInt32BE() : undefined,
    originalOffset: offset?.length === 8 ? offset.readBigInt64BE().toString() : undefined,
    originalTimestamp: timestamp?.length === 8 ? Number(timestamp.readBigInt64BE()) : undefined,
    consumerGroup: buf(SPRING_DLT_HEADERS.originalConsumerGroup)?.toString('utf8'),
    exceptionFqcn: buf(SPRING_DLT_HEADERS.exceptionFqcn)?.toString('utf8'),
    exceptionMessage: buf(SPRING_DLT_HEADERS.exceptionMessage)?.toString('utf8'),
    stackTrace: buf(SPRING_DLT_HEADERS.exceptionStacktrace)?.toString('utf8'),
  };
}
