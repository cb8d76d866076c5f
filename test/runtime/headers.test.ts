import { HEADERS, PARK_STATE_HEADER, SPRING_DLT_HEADERS } from '../../src/naming/headers';
import { decodeRetryHeaders, encodeRetryHeaders, MAX_ERROR_MESSAGE_LENGTH, parkStateHeaderValue, parkStateIdOf, passThroughHeaders, retryIdOf } from '../../src/runtime/headers';
import { decodeSpringDltHeaders, encodeSpringDltHeaders } from '../../src/runtime/spring-headers';

describe('the x-* header codec (R9)', () => {
  const encoded = encodeRetryHeaders({
    attempt: 2,
    dueAt: 1_700_000_060_000,
    firstFailedAt: 1_700_000_000_000,
    originalTopic: 'orders.confirmed',
    originalPartition: 3,
    originalOffset: '9007199254740993',
    errorClass: 'HTTPError',
    errorMessage: 'payment-svc 503',
  });

  it('writes decimal strings under the documented names', () => {
    expect(encoded).toEqual({
      'x-attempt': '2',
      'x-due-at': '1700000060000',
      'x-first-failed-at': '1700000000000',
      'x-original-topic': 'orders.confirmed',
      'x-original-partition': '3',
      'x-original-offset': '9007199254740993',
      'x-error-class': 'HTTPError',
      'x-error-message': 'payment-svc 503',
    });
  });

  it('reads back what it wrote, from Buffers as clients deliver them, offsets beyond 2^53 intact', () => {
    const asBuffers = Object.fromEntries(Object.entries(encoded).map(([k, v]) => [k, Buffer.from(v)]));
    expect(decodeRetryHeaders(asBuffers)).toEqual({
      attempt: 2,
      dueAt: 1_700_000_060_000,
      firstFailedAt: 1_700_000_000_000,
      originalTopic: 'orders.confirmed',
      originalPartition: 3,
      originalOffset: '9007199254740993',
      errorClass: 'HTTPError',
      errorMessage: 'payment-svc 503',
      replayedFromDlq: false,
    });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['non-numeric', 'three'],
    ['negative', '-1'],
    ['fractional', '1.5'],
    ['huge', '99999999999999999999999'],
    ['hex', '0x10'],
    ['with a unit', '5s'],
  ])('reads a %s x-attempt and x-due-at as absent, without throwing', (_what, value) => {
    const headers = value === undefined ? {} : { [HEADERS.attempt]: value, [HEADERS.dueAt]: Buffer.from(value) };
    const decoded = decodeRetryHeaders(headers);
    expect(decoded.attempt).toBeUndefined();
    expect(decoded.dueAt).toBeUndefined();
  });

  it('reads an original offset written with leading zeros as the offset it names, as the Spring layouts (8 bytes) read it', () => {
    // Found by damaged-origin.test.ts with seed 1461008445: "00" was kept as written, so a DLQ
    // record's x-original-offset said "00" and its kafka_dlt-original-offset 0.
    expect(decodeRetryHeaders({ [HEADERS.originalOffset]: '00' }).originalOffset).toBe('0');
    expect(decodeRetryHeaders({ [HEADERS.originalOffset]: Buffer.from('0042') }).originalOffset).toBe('42');
  });

  it('reads no headers at all as an empty description', () => {
    expect(decodeRetryHeaders(undefined)).toEqual(expect.objectContaining({ attempt: undefined, originalTopic: undefined, replayedFromDlq: false }));
  });

  it('truncates long error messages', () => {
    const long = encodeRetryHeaders({ ...decodeForEncode(), errorMessage: 'x'.repeat(10_000) });
    expect(long[HEADERS.errorMessage]!.length).toBe(MAX_ERROR_MESSAGE_LENGTH);
  });

  it("passes the record's own headers through and drops stale x-* and Spring ones", () => {
    expect(passThroughHeaders({ 'trace-id': 'abc', [HEADERS.attempt]: '3', [SPRING_DLT_HEADERS.originalTopic]: 'x', 'event-id': Buffer.from('e-1') })).toEqual({
      'trace-id': 'abc',
      'event-id': Buffer.from('e-1'),
    });
  });
});

function decodeForEncode() {
  return { attempt: 1, firstFailedAt: 1, originalTopic: 't', originalPartition: 0, originalOffset: '0', errorClass: 'Error', errorMessage: '' };
}

describe("Spring Kafka's dead-letter headers (R10)", () => {
  const headers = encodeSpringDltHeaders({
    originalTopic: 'orders.confirmed',
    originalPartition: 3,
    originalOffset: '4',
    originalTimestamp: 1_700_000_000_123,
    consumerGroup: 'billing-order-confirmed',
    exceptionFqcn: 'HTTPError',
    exceptionMessage: 'payment-svc 503',
  });

  it('encodes the partition as a 4-byte big-endian int, as Spring does', () => {
    expect([...headers[SPRING_DLT_HEADERS.originalPartition]!]).toEqual([0, 0, 0, 3]);
  });

  it('encodes offset and timestamp as 8-byte big-endian longs', () => {
    expect([...headers[SPRING_DLT_HEADERS.originalOffset]!]).toEqual([0, 0, 0, 0, 0, 0, 0, 4]);
    expect(headers[SPRING_DLT_HEADERS.originalTimestamp]!.toString('hex')).toBe((1_700_000_000_123).toString(16).padStart(16, '0'));
  });

  it('encodes texts as UTF-8 and leaves the stack trace out unless asked', () => {
    expect(headers[SPRING_DLT_HEADERS.originalTopic]!.toString('utf8')).toBe('orders.confirmed');
    expect(headers[SPRING_DLT_HEADERS.originalConsumerGroup]!.toString('utf8')).toBe('billing-order-confirmed');
    expect(headers[SPRING_DLT_HEADERS.exceptionStacktrace]).toBeUndefined();
  });

  it('decodes what it encodes, and reads a header of the wrong size as absent', () => {
    expect(decodeSpringDltHeaders(headers)).toMatchObject({ originalPartition: 3, originalOffset: '4', originalTimestamp: 1_700_000_000_123, exceptionFqcn: 'HTTPError' });
    expect(decodeSpringDltHeaders({ ...headers, [SPRING_DLT_HEADERS.originalPartition]: Buffer.from([1, 2]) }).originalPartition).toBeUndefined();
  });
});

describe('x-park-state: the state a copy was written under, and its retry id', () => {
  const read = (value: string) => ({ id: parkStateIdOf({ [PARK_STATE_HEADER]: Buffer.from(value) }), retryId: retryIdOf({ [PARK_STATE_HEADER]: Buffer.from(value) }) });

  it('writes the state id, then the retry id of a replayed record\'s retry after a dot, each only when there is one', () => {
    expect(parkStateHeaderValue('AbC-_123', undefined)).toBe('AbC-_123');
    expect(parkStateHeaderValue('AbC-_123', 'r-_9Zz')).toBe('AbC-_123.r-_9Zz');
    expect(parkStateHeaderValue(undefined, 'r-_9Zz')).toBe('.r-_9Zz');
    expect(parkStateHeaderValue(undefined, undefined)).toBeUndefined();
  });

  it('reads back each part it writes', () => {
    expect(read('AbC-_123')).toEqual({ id: 'AbC-_123', retryId: undefined });
    expect(read('AbC-_123.r-_9Zz')).toEqual({ id: 'AbC-_123', retryId: 'r-_9Zz' });
    expect(read('.r-_9Zz')).toEqual({ id: undefined, retryId: 'r-_9Zz' });
    expect(read('no-state')).toEqual({ id: 'no-state', retryId: undefined });
  });

  it('reads a value of any other shape as carrying neither', () => {
    for (const value of ['AbC-_12', 'AbC-_1234', 'AbC-_123.r-_9Z', 'AbC-_123.r-_9Zzz', 'AbC-_123r-_9Zz', 'AbC-_123.', 'AbC-_123 .r-_9Zz']) expect(read(value)).toEqual({ id: undefined, retryId: undefined });
  });
});
