import { SPRING_DLT_HEADERS, SPRING_RETRY_TOPIC_HEADERS } from '../naming/headers';
import { MAX_EPOCH_MS, truncate } from './headers';

/** What Spring's headers say about a failed record; every original-* value describes the main-topic record. */
export interface SpringHeaderValues {
  readonly originalTopic: string;
  /** Left out when unknown, as the offset. */
  readonly originalPartition?: number;
  /** A decimal string: offsets go beyond 2^53. */
  readonly originalOffset?: string;
  /** Epoch ms of the main-topic record; left out when unknown. */
  readonly originalTimestamp?: number;
  readonly consumerGroup: string;
  readonly exceptionFqcn: string;
  readonly exceptionCauseFqcn?: string;
  readonly exceptionMessage: string;
  readonly stackTrace?: string;
}

/** Stack traces are opt-in (they name files and code paths) and bounded like the message. */
export const MAX_STACK_TRACE_LENGTH = 8 * 1024;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An integer as a bigint, or undefined when it is not one (NaN, Infinity, 1.5, 'abc'). */
function integerOf(value: number | string | undefined): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  return value !== undefined && /^-?\d{1,20}$/.test(value) ? BigInt(value) : undefined;
}

/** Java's `long`, big-endian; undefined when the value does not fit (it is then left out, never a throw). */
export function int64Bytes(value: number | string | undefined): Buffer | undefined {
  const n = integerOf(value);
  if (n === undefined || n < INT64_MIN || n > INT64_MAX) return undefined;
  const out = Buffer.alloc(8);
  out.writeBigInt64BE(n);
  return out;
}

/** Java's `int`, big-endian; undefined when the value does not fit. */
export function int32Bytes(value: number | undefined): Buffer | undefined {
  if (value === undefined || !Number.isInteger(value) || value < -(2 ** 31) || value > 2 ** 31 - 1) return undefined;
  const out = Buffer.alloc(4);
  out.writeInt32BE(value);
  return out;
}

/** Java's `BigInteger.valueOf(n).toByteArray()`: the shortest big-endian two's complement. */
export function javaBigIntegerBytes(value: number | undefined): Buffer | undefined {
  const n = integerOf(value);
  if (n === undefined || n < INT64_MIN || n > INT64_MAX) return undefined;
  let bytes = 1;
  while (n < -(1n << BigInt(8 * bytes - 1)) || n >= 1n << BigInt(8 * bytes - 1)) bytes++;
  return Buffer.from(BigInt.asUintN(8 * bytes, n).toString(16).padStart(2 * bytes, '0'), 'hex');
}

/**
 * An epoch ms a Date holds (0 to MAX_EPOCH_MS), or undefined: Spring's longs reach 2^63,
 * and a timestamp beyond a Date's range would make every reader that prints it throw.
 */
function epochMs(n: bigint): number | undefined {
  return n >= 0n && n <= BigInt(MAX_EPOCH_MS) ? Number(n) : undefined;
}

function readJavaBigInteger(bytes: Buffer | undefined): number | undefined {
  if (!bytes || bytes.length === 0 || bytes.length > 8) return undefined;
  return epochMs(BigInt.asIntN(8 * bytes.length, BigInt(`0x${bytes.toString('hex')}`)));
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** Leaves out the entries whose value could not be encoded. */
function present(entries: [string, Buffer | undefined][]): Record<string, Buffer> {
  return Object.fromEntries(entries.filter((e): e is [string, Buffer] => e[1] !== undefined));
}

type Names = typeof SPRING_DLT_HEADERS | typeof SPRING_RETRY_TOPIC_HEADERS;

function originalAndException(names: Names, h: SpringHeaderValues): [string, Buffer | undefined][] {
  return [
    [names.originalTopic, utf8(h.originalTopic)],
    [names.originalPartition, int32Bytes(h.originalPartition)],
    [names.originalOffset, int64Bytes(h.originalOffset)],
    [names.originalTimestamp, int64Bytes(h.originalTimestamp)],
    [names.originalConsumerGroup, utf8(h.consumerGroup)],
    [names.exceptionFqcn, utf8(h.exceptionFqcn)],
    [names.exceptionCauseFqcn, h.exceptionCauseFqcn === undefined ? undefined : utf8(h.exceptionCauseFqcn)],
    [names.exceptionMessage, utf8(truncate(h.exceptionMessage))],
    [names.exceptionStacktrace, h.stackTrace === undefined ? undefined : utf8(truncate(h.stackTrace, MAX_STACK_TRACE_LENGTH))],
  ];
}

/**
 * Spring Kafka's dead-letter headers (R10) with Spring's encodings, so JVM tooling reads
 * our DLQ records: the partition as a 4-byte big-endian int, offset and timestamp as
 * 8-byte big-endian longs, the rest as UTF-8 text. A value that does not fit Spring's
 * type is left out; the `x-*` headers still carry it as text. Never throws.
 */
export function encodeSpringDltHeaders(h: SpringHeaderValues): Record<string, Buffer> {
  return present(originalAndException(SPRING_DLT_HEADERS, h));
}

/**
 * The layout of Spring's `@RetryableTopic` on retry-topic and DLT records: the
 * original-* and exception headers without the `dlt` prefix, plus `retry_topic-*`:
 * attempts (the attempt the record is on at its destination) and the backoff timestamp
 * (when it is due; on the DLT, when it failed). Never throws.
 */
export function encodeSpringRetryTopicHeaders(h: SpringHeaderValues & { readonly attempts: number; readonly backoffTimestamp: number }): Record<string, Buffer> {
  return present([
    ...originalAndException(SPRING_RETRY_TOPIC_HEADERS, h),
    [SPRING_RETRY_TOPIC_HEADERS.retryOriginalTimestamp, javaBigIntegerBytes(h.originalTimestamp)],
    [SPRING_RETRY_TOPIC_HEADERS.retryAttempts, int32Bytes(h.attempts)],
    [SPRING_RETRY_TOPIC_HEADERS.retryBackoffTimestamp, javaBigIntegerBytes(h.backoffTimestamp)],
  ]);
}

type HeaderInput = Readonly<Record<string, Buffer | string | (Buffer | string)[] | undefined>>;

/**
 * A header's bytes. Spring appends a header again where it adds one more value: its
 * exception headers keep the newest (the last), its original-* headers describe the record
 * where the journey began (the first: `@RetryableTopic` keeps only that one).
 */
function reader(headers: HeaderInput) {
  return (name: string, which: 'first' | 'last' = 'last'): Buffer | undefined => {
    const raw = headers[name];
    const v = Array.isArray(raw) ? raw[which === 'first' ? 0 : raw.length - 1] : raw;
    return v === undefined ? undefined : Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'utf8');
  };
}

function decodeWith(names: Names, headers: HeaderInput) {
  const buf = reader(headers);
  const partition = buf(names.originalPartition, 'first');
  const offset = buf(names.originalOffset, 'first');
  const timestamp = buf(names.originalTimestamp, 'first');
  return {
    originalTopic: buf(names.originalTopic, 'first')?.toString('utf8'),
    originalPartition: partition?.length === 4 ? partition.readInt32BE() : undefined,
    originalOffset: offset?.length === 8 ? offset.readBigInt64BE().toString() : undefined,
    originalTimestamp: timestamp?.length === 8 ? epochMs(timestamp.readBigInt64BE()) : undefined,
    consumerGroup: buf(names.originalConsumerGroup, 'first')?.toString('utf8'),
    exceptionFqcn: buf(names.exceptionFqcn)?.toString('utf8'),
    exceptionCauseFqcn: buf(names.exceptionCauseFqcn)?.toString('utf8'),
    exceptionMessage: buf(names.exceptionMessage)?.toString('utf8'),
    stackTrace: buf(names.exceptionStacktrace)?.toString('utf8'),
  };
}

/** Reads Spring's dead-letter headers back; a header of the wrong size reads as absent. */
export function decodeSpringDltHeaders(headers: HeaderInput) {
  return decodeWith(SPRING_DLT_HEADERS, headers);
}

/** Reads the `@RetryableTopic` layout back; a header of the wrong size reads as absent. */
export function decodeSpringRetryTopicHeaders(headers: HeaderInput) {
  const buf = reader(headers);
  const attempts = buf(SPRING_RETRY_TOPIC_HEADERS.retryAttempts);
  return {
    ...decodeWith(SPRING_RETRY_TOPIC_HEADERS, headers),
    retryOriginalTimestamp: readJavaBigInteger(buf(SPRING_RETRY_TOPIC_HEADERS.retryOriginalTimestamp)),
    // Spring before 3.0 wrote one unsigned byte; it still reads that form.
    attempts: attempts?.length === 4 ? attempts.readInt32BE() : attempts?.length === 1 ? attempts.readUInt8() : undefined,
    backoffTimestamp: readJavaBigInteger(buf(SPRING_RETRY_TOPIC_HEADERS.retryBackoffTimestamp)),
  };
}
