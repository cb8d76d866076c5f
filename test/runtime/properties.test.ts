import fc from 'fast-check';
import { HEADERS } from '../../src/naming/headers';
import { composeClassifiers, defaultClassifier, ERROR_KINDS, policyClassifier } from '../../src/runtime/classify';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { buildDestinationRecord } from '../../src/runtime/destination-record';
import type { RoutedDestination } from '../../src/runtime/destination-record';
import { dueTimeOf } from '../../src/runtime/due-time';
import { decodeRetryHeaders, encodeRetryHeaders, MAX_EPOCH_MS } from '../../src/runtime/headers';
import { decodeParkState, encodeParkState } from '../../src/runtime/park-state';
import type { ParkState } from '../../src/runtime/park-state';
import { attemptOf, resolveDestination } from '../../src/runtime/resolve';
import { decodeSpringDltHeaders, decodeSpringRetryTopicHeaders, encodeSpringDltHeaders, encodeSpringRetryTopicHeaders } from '../../src/runtime/spring-headers';
import { billingDescriptor } from './descriptor';
import { propertyRuns } from './fault-runs';

/**
 * Bounded so that `npm test` stays fast (KRT_PROPERTY_RUNS raises it, KRT_PROPERTY_SEED
 * picks the seed); a failure prints its seed and shrunk counterexample.
 */
const RUNS = propertyRuns(200);

// A few seconds at the default count; a loaded CI machine may take several times that.
jest.setTimeout(Math.max(120_000, RUNS.numRuns * 100));

/** Values a handler may throw, including those that break naive code. */
const thrown = fc.oneof(
  fc.anything(),
  fc.constant(Object.create(null)),
  fc.string().map((message) => Object.assign(Object.create(null), { message })),
  fc.constant({ get name(): string { throw new Error('name getter'); }, get message(): string { throw new Error('message getter'); } }),
  fc.constant(new Proxy({}, { get: () => { throw new Error('proxy'); } })),
  fc.constant((() => { const o: Record<string, unknown> = {}; o.self = o; o.cause = o; return o; })()),
  fc.string().map((s) => Symbol(s)),
  fc.bigInt(),
  fc.anything().map((message) => Object.assign(new Error(), { message })),
  fc.anything().map((name) => Object.assign(new Error('named'), { name })),
  fc.anything().map((cause) => new Error('with a cause', { cause })),
);

const headerValue = fc.oneof(fc.string(), fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b)));
const ourHeaderNames = fc.constantFrom(...Object.values(HEADERS), 'kafka_dlt-original-offset', 'retry_topic-attempts', 'trace-id');
const headers = fc.dictionary(fc.oneof(ourHeaderNames, fc.string()), fc.oneof(headerValue, fc.array(headerValue, { maxLength: 3 })));
const numericText = fc.oneof(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String), fc.constantFrom('-1', 'NaN', 'Infinity', '1e30', '', ' 7 '), fc.string());

const consumer = (headerStyle: ConsumerDescriptor['headerStyle'], ordering: ConsumerDescriptor['ordering']) => billingDescriptor({ headerStyle, ordering });
const descriptors = fc.tuple(fc.constantFrom('x', 'x+spring', 'x+spring-retry-topic' as const), fc.constantFrom('unordered', 'park-by-key', 'in-place-only' as const)).map(([h, o]) => consumer(h, o));

describe('properties of the runtime', () => {
  it('builds a tier or DLQ record from any record, any headers and any thrown value, without throwing', () => {
    fc.assert(
      fc.property(descriptors, fc.nat({ max: 3 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), numericText, numericText, headers, thrown, fc.boolean(), fc.boolean(), (d, from, partition, offset, timestamp, h, error, toDlq, traces) => {
        const topic = from === 0 ? d.mainTopic : d.tiers[from - 1]!.topic;
        const record = { topic, partition, message: { key: null, value: null, headers: h, offset: /^\d+$/.test(offset) ? offset : '0', timestamp } };
        const destination: RoutedDestination = toDlq ? { kind: 'dlq', attempt: from + 1, reason: 'permanent' } : { kind: 'tier', tier: d.tiers[0]!, attempt: 2, dueAt: 5 };
        const out = buildDestinationRecord(d, record, error, destination, { now: 1_000, includeStackTraces: traces });
        for (const value of Object.values(out.headers)) for (const v of [value].flat()) expect(typeof v === 'string' || Buffer.isBuffer(v)).toBe(true);
        expect(typeof out.headers[HEADERS.errorMessage]).toBe('string');
        expect(out.partition).toBe(partition);
      }),
      RUNS,
    );
  });

  it('classifies any thrown value as one of the five kinds, without throwing', () => {
    const classify = composeClassifiers(policyClassifier(billingDescriptor().errorPolicy), defaultClassifier);
    fc.assert(fc.property(thrown, (error) => expect(ERROR_KINDS).toContain(classify(error))), RUNS);
  });

  it('ends every record in success, a tier or the DLQ within a bounded number of local steps', () => {
    const kinds = fc.constantFrom(...ERROR_KINDS);
    const ladders = fc.array(fc.integer({ min: 1, max: 10 ** 9 }), { maxLength: 5 });
    fc.assert(
      fc.property(ladders, fc.integer({ min: 1, max: 5 }), fc.nat({ max: 5 }), fc.constantFrom('unordered', 'park-by-key', 'in-place-only' as const), fc.array(kinds, { minLength: 40, maxLength: 40 }), (delays, attempts, ambiguousTiers, ordering, failures) => {
        const d = billingDescriptor({
          ordering,
          inPlace: { attempts, backoffMs: 1, maxBackoffMs: 1, jitter: 0 },
          errorPolicy: { permanent: [], ambiguous: [], ambiguousTiers },
          tiers: delays.map((delayMs, i) => ({ index: i + 1, topic: `t.retry.${i}`, delayMs, label: `${i}` })),
        });
        let topic = d.mainTopic;
        let steps = 0;
        const next = () => failures[steps++ % failures.length]!;
        for (;;) {
          let destination = resolveDestination(d, { topic, kind: next(), triesInPlace: 1, now: 0 });
          for (let tries = 2; destination.kind === 'in-place'; tries++) destination = resolveDestination(d, { topic, kind: next(), triesInPlace: tries, now: 0 });
          expect(steps).toBeLessThanOrEqual((d.tiers.length + 1) * attempts);
          if (destination.kind === 'dlq') return;
          expect(destination.attempt).toBe(attemptOf(d, topic) + 1);
          expect(destination.dueAt).toBe(destination.tier.delayMs);
          topic = destination.tier.topic;
        }
      }),
      RUNS,
    );
  });

  it('reads back the x-* headers it wrote, and reads any header bytes without throwing', () => {
    const written = fc.record({
      attempt: fc.integer({ min: 1, max: 1_000_000 }),
      dueAt: fc.option(fc.integer({ min: 0, max: 8_640_000_000_000_000 }), { nil: undefined }),
      firstFailedAt: fc.integer({ min: 0, max: 8_640_000_000_000_000 }),
      originalTopic: fc.string({ minLength: 1 }),
      originalPartition: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      originalOffset: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map(String),
      originalTimestamp: fc.option(fc.integer({ min: 0, max: 8_640_000_000_000_000 }), { nil: undefined }),
      errorClass: fc.string({ minLength: 1 }),
      errorMessage: fc.string({ maxLength: 200 }),
    });
    fc.assert(
      fc.property(written, (h) => {
        const asBuffers = Object.fromEntries(Object.entries(encodeRetryHeaders(h)).map(([k, v]) => [k, Buffer.from(v)]));
        const { replayedFromDlq, ...decoded } = decodeRetryHeaders(asBuffers);
        expect(replayedFromDlq).toBe(false);
        expect(decoded).toEqual(JSON.parse(JSON.stringify({ ...h, errorMessage: Buffer.from(h.errorMessage).toString() })));
      }),
      RUNS,
    );
    fc.assert(fc.property(headers, (h) => void decodeRetryHeaders(h)), RUNS);
  });

  it("reads back Spring's headers it wrote, in both layouts, leaves out what Spring's types cannot hold, and reads a timestamp a Date cannot hold as unknown", () => {
    const values = fc.record({
      originalTopic: fc.string(),
      originalPartition: fc.integer({ min: -(2 ** 33), max: 2 ** 33 }),
      originalOffset: numericText,
      originalTimestamp: fc.option(fc.oneof(fc.integer(), fc.double(), fc.constant(2 ** 63)), { nil: undefined }),
      consumerGroup: fc.string(),
      exceptionFqcn: fc.string(),
      exceptionMessage: fc.string({ maxLength: 100 }),
      attempts: fc.integer({ min: -(2 ** 32), max: 2 ** 32 }),
      backoffTimestamp: fc.oneof(fc.integer(), fc.maxSafeInteger()),
    });
    const fitsInt = (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31;
    const fitsLong = (s: string) => /^-?\d{1,20}$/.test(s) && BigInt(s) >= -(2n ** 63n) && BigInt(s) < 2n ** 63n;
    // `+ 0`: a -0 timestamp is written as 0.
    const epochMs = (n: number | undefined) => (n !== undefined && Number.isSafeInteger(n) && n >= 0 && n <= MAX_EPOCH_MS ? n + 0 : undefined);
    fc.assert(
      fc.property(values, (v) => {
        const dlt = decodeSpringDltHeaders(encodeSpringDltHeaders(v));
        const retryTopic = decodeSpringRetryTopicHeaders(encodeSpringRetryTopicHeaders(v));
        for (const decoded of [dlt, retryTopic]) {
          expect(decoded.originalTopic).toBe(Buffer.from(v.originalTopic).toString());
          expect(decoded.originalPartition).toBe(fitsInt(v.originalPartition) ? v.originalPartition : undefined);
          expect(decoded.originalOffset).toBe(fitsLong(v.originalOffset) ? BigInt(v.originalOffset).toString() : undefined);
          expect(decoded.originalTimestamp).toBe(epochMs(v.originalTimestamp));
        }
        expect(retryTopic.attempts).toBe(fitsInt(v.attempts) ? v.attempts : undefined);
        expect(retryTopic.backoffTimestamp).toBe(epochMs(v.backoffTimestamp));
        expect(retryTopic.retryOriginalTimestamp).toBe(retryTopic.originalTimestamp);
      }),
      RUNS,
    );
  });

  it('reads back any park state it wrote, and reads any metadata without throwing', () => {
    const hash = fc.stringMatching(/^[A-Za-z0-9_-]{12}$/);
    const states = fc
      .record({ position: fc.bigInt({ min: 0n, max: 2n ** 62n }), held: fc.array(fc.tuple(hash, fc.nat({ max: 10_000 })), { maxLength: 5 }), parked: fc.array(fc.tuple(fc.nat({ max: 10_000 }), hash), { maxLength: 5 }) })
      .filter((s) => s.held.every(([, d]) => BigInt(d) < s.position + 1n) && s.parked.every(([d]) => BigInt(d) + 1n <= s.position))
      .map((s): ParkState => ({
        position: s.position,
        held: new Map(s.held.map(([h, d]) => [h, s.position - 1n - BigInt(Math.min(d, Number(s.position) - 1))])),
        parked: new Map(s.parked.map(([d, h]) => [s.position - 1n - BigInt(d), h])),
      }))
      .filter((s) => s.position > 0n);
    fc.assert(
      fc.property(states, (state) => {
        const decoded = decodeParkState(committedOf(state), encodeParkState(state));
        expect(decoded).toEqual(state);
      }),
      RUNS,
    );
    // Metadata shaped like ours, with distances of any length: never a throw, never an offset before 0.
    const digits = fc.stringMatching(/^[0-9a-z]{1,40}$/);
    const entry = fc.tuple(hash, fc.option(digits, { nil: undefined }), fc.array(digits, { maxLength: 3 })).map(([h, at, parked]) => `${h}${at ? `@${at}` : ''}${parked.length ? `:${parked.join(',')}` : ''}`);
    const metadata = fc.oneof(fc.string(), fc.tuple(digits, fc.array(entry, { maxLength: 4 })).map(([ahead, entries]) => ['krt-parked/1', `+${ahead}`, ...entries].join(' ')));
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 62n }), metadata, (committed, m) => {
        const state = decodeParkState(committed, m);
        for (const o of [...state.held.values(), ...state.parked.keys()]) expect(o >= 0n && o <= state.position).toBe(true);
      }),
      RUNS,
    );
  });

  it('never makes a record this library published due early, and never holds it longer than the delay after first read', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 45 }), fc.integer({ min: 1, max: 2 ** 40 }), fc.nat({ max: 2 ** 30 }), fc.option(fc.nat({ max: 2 ** 30 }), { nil: undefined }), fc.boolean(), (publishedAt, delayMs, readAfter, writtenAfter, withHeader) => {
        const due = publishedAt + delayMs;
        const firstSeenAt = publishedAt + readAfter;
        const at = dueTimeOf({ header: withHeader ? due : undefined, writtenAt: writtenAfter === undefined ? undefined : publishedAt + writtenAfter, firstSeenAt, delayMs });
        expect(at).toBeGreaterThanOrEqual(due);
        expect(at).toBeLessThanOrEqual(firstSeenAt + delayMs);
      }),
      RUNS,
    );
  });
});

function committedOf(state: ParkState): bigint {
  return [...state.parked.keys()].reduce((min, o) => (o < min ? o : min), state.position);
}
