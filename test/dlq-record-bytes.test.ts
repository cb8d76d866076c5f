import { headerViews } from '../src/console/record-view';
import { bytesView } from '../src/console/record-view';
import { groupRecords, recordJson } from '../src/dlq/inspect';
import { recordPage } from '../src/console/pages/record';
import { isoTime } from '../src/console/pages/layout';
import { preview } from '../src/dlq/session';
import { aConsumer, aTopology, compile } from './helpers/specs';
import { decodeDlqHeaders } from '../src/dlq/origin';
import { confluentSchemaId } from '../src/dlq/schema-id';
import type { DlqRecord } from '../src/dlq/session';
import type { RawHeaders } from '../src/runtime/headers';
import { replayCountOf } from '../src/dlq/replay-count';

/**
 * #26 parts 2 and 4: the DLQ tools read whatever bytes a record carries (ours,
 * Spring's, or garbage) and describe it; one record's header bytes must never stop
 * `krt dlq inspect --json` or the console's record page for the others.
 */
const int64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(n);
  return b;
};
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

/** A dead letter as Spring's DeadLetterPublishingRecoverer writes it, with an 8-byte original timestamp of the caller's choosing. */
function springDeadLetter(timestamp: Buffer): RawHeaders {
  return {
    'kafka_dlt-original-topic': Buffer.from('orders.confirmed'),
    'kafka_dlt-original-partition': int32(0),
    'kafka_dlt-original-offset': int64(7n),
    'kafka_dlt-original-timestamp': timestamp,
    'kafka_dlt-original-timestamp-type': Buffer.from('CreateTime'),
    'kafka_dlt-exception-fqcn': Buffer.from('java.lang.IllegalStateException'),
    'kafka_dlt-exception-message': Buffer.from('boom'),
  };
}

function dlqRecord(headers: RawHeaders, value: Buffer | null = Buffer.from('v')): DlqRecord {
  return { id: '0:0', partition: 0, offset: 0n, timestamp: 1_700_000_000_000, key: Buffer.from('k'), value, headers, decoded: decodeDlqHeaders(headers), replayCount: replayCountOf(headers) };
}

describe('a DLQ record whose Spring original timestamp is beyond what a Date holds', () => {
  // Long.MAX_VALUE: what a Java producer's "no timestamp" sentinel, or any 8 garbage bytes, can be.
  const headers = springDeadLetter(int64(2n ** 63n - 1n));

  // Once a defect, fixed in #26 (src/runtime/spring-headers.ts:134 -> record-origin.ts:86/117 -> dlq/inspect.ts:111): Spring's
  // 8-byte timestamp is taken as Number(readBigInt64BE()) with only a sign check, so 9.2e18 passes as an
  // origin timestamp, and `new Date(ms).toISOString()` throws RangeError: `krt dlq inspect --json` (and
  // every tool that prints records as JSON) dies on one record, the others unprinted. Our own
  // x-original-timestamp is bounded by MAX_EPOCH_MS (headers.ts:53); Spring's is not. Class: a decoded
  // number is range-checked in one layout and not in the other. Fix: bound every decoded timestamp by
  // MAX_EPOCH_MS in decodeWith/readJavaBigInteger (undefined beyond), as decodeRetryHeaders does.
  it('prints it with --json, its original timestamp unknown', () => {
    expect(() => recordJson(dlqRecord(headers))).not.toThrow();
    expect(recordJson(dlqRecord(headers)).originalTimestamp).toBeNull();
  });

  // Same class (src/console/record-view.ts:60 `iso`): the record page decodes Spring's numbers itself and
  // throws on the same bytes, so the console cannot show the one record an on-call engineer needs to read.
  it("shows its headers on the console's record page", () => {
    expect(() => headerViews(headers)).not.toThrow();
  });
});

describe('a DLQ record whose own timestamp is beyond what a Date holds', () => {
  // Kafka takes any 64-bit CreateTime a producer sets; the tools print it, they must not die on it.
  const record = { ...dlqRecord({}), timestamp: 9.2e18 };
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m'] })] })).model!.topologies[0]!.consumers[0]!;

  it('is printed with --json and grouped by krt dlq inspect, its timestamp unknown or as the number', () => {
    expect(recordJson(record).timestamp).toBeNull();
    expect(groupRecords([record])[0]).toMatchObject({ oldest: '9200000000000000000', newest: '9200000000000000000' });
  });

  it("is listed and shown on the console's pages, its timestamp as the number", () => {
    expect(isoTime(9.2e18)).toBe('9200000000000000000');
    expect(() => recordPage(consumer, record, { topic: consumer.mainTopic.name })).not.toThrow();
  });
});

describe('a DLQ record with a header named __proto__', () => {
  it('keeps it in the preview a listing holds', () => {
    const headers = JSON.parse('{"__proto__": "weird but legal", "constructor": "c"}') as RawHeaders;
    const held = preview(dlqRecord(headers), 4).headers;
    expect(Object.prototype.hasOwnProperty.call(held, '__proto__')).toBe(true);
    expect(held['__proto__']).toBe('weird but legal');
    expect(held['constructor']).toBe('c');
  });
});

describe('bytes shown as they are', () => {
  it('never takes a value cut short after the magic byte, or schema id 0, for a Schema Registry frame', () => {
    expect(confluentSchemaId(Buffer.from([0, 0, 0, 1]))).toBeUndefined();
    expect(confluentSchemaId(Buffer.from([0, 0, 0, 0, 0, 1]))).toBeUndefined();
    expect(confluentSchemaId(Buffer.from([0, 0x80, 0, 0, 1]))).toBeUndefined();
    expect(confluentSchemaId(Buffer.from([0, 0, 0, 0, 9]))).toBe(9);
  });

  it('prints invalid UTF-8 and NUL-bearing values exactly in --json, and framed UTF-8-looking bytes as base64', () => {
    const invalid = Buffer.from([0x66, 0xff, 0x00, 0xc3]);
    const json = recordJson(dlqRecord({}, invalid));
    expect(Buffer.from(json.value!, json.valueEncoding as BufferEncoding)).toEqual(invalid);
    const nul = Buffer.from('a\u0000b');
    const nulJson = recordJson(dlqRecord({}, nul));
    expect(Buffer.from(nulJson.value!, nulJson.valueEncoding as BufferEncoding)).toEqual(nul);
    const framed = Buffer.from([0, 0, 0, 0, 0x2a, 0x7b, 0x7d]);
    expect(recordJson(dlqRecord({}, framed))).toMatchObject({ valueEncoding: 'base64', valueSchemaId: 42 });
    expect(bytesView(framed)).toMatchObject({ kind: 'hex', schemaId: 42 });
  });

  it("shows each value of a repeated header on its own row, Spring's binary numbers in hex", () => {
    const rows = headerViews({ 'x-note': ['a', Buffer.from([0xff])], 'kafka_dlt-original-offset': int64(7n) });
    expect(rows.map((r) => r.raw)).toEqual(['a', 'hex ff', `hex ${int64(7n).toString('hex')}`]);
  });
});
