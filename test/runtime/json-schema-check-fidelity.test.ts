import { z } from 'zod';
import { valueCodecSchema } from '../../src/spec/value-codec';
import { DeserializationError, jsonSchemaDecoder } from '../../src/runtime/value-codec';
import type { EachMessagePayload } from '../../src/runtime/port';

/**
 * #26 (typed values): the runtime's own JSON Schema check must agree with the zod schema
 * the spec declared. Where it is stricter, a value zod accepts goes to the DLQ at attempt 1
 * (a healthy stream disappears into the DLQ); where it is looser, the handler gets a value
 * its zod schema (and so its type) refuses.
 */

/** The decoder the runtime makes of a spec's zod schema, exactly as synth carries it. */
function decoderOf(schema: z.ZodType) {
  const codec = valueCodecSchema.parse(schema);
  if (codec.kind !== 'json-schema') throw new Error('expected a JSON Schema codec');
  return jsonSchemaDecoder(codec.schema);
}

const record = {} as EachMessagePayload;
/** Whether the runtime hands the value to the handler (true) or refuses it as a DeserializationError. */
function runtimeAccepts(schema: z.ZodType, value: unknown): boolean {
  try {
    void decoderOf(schema)(Buffer.from(JSON.stringify(value)), record);
    return true;
  } catch (error) {
    if (!(error instanceof DeserializationError) && !(error instanceof SyntaxError)) throw error;
    return false;
  }
}

describe('the runtime check agrees with zod on values zod accepts', () => {
  // Once a defect (#26, json-schema-check.ts:152): multipleOf is checked as Number.isInteger(value / step), so float
  // steps refuse valid values (0.3 / 0.1 = 2.9999999999999996); zod uses a float-safe remainder.
  it('accepts 0.3 for a number that must be a multiple of 0.1, as zod does', () => {
    const Price = z.object({ amount: z.number().multipleOf(0.1) });
    expect(Price.safeParse({ amount: 0.3 }).success).toBe(true);
    expect(runtimeAccepts(Price, { amount: 0.3 })).toBe(true);
  });

  // Once a defect (#26, json-schema-check.ts:143): patterns are compiled with the 'u' flag, under which an identity
  // escape such as \- outside a class is a SyntaxError; every record then fails the check, valid or not,
  // and goes to the DLQ with "Invalid regular expression" as its message. zod ran the regex without 'u'.
  it('accepts a value matching a regex with an escaped hyphen, as zod does', () => {
    const Sku = z.object({ sku: z.string().regex(/^[A-Z]+\-\d+$/) });
    expect(Sku.safeParse({ sku: 'AB-12' }).success).toBe(true);
    expect(runtimeAccepts(Sku, { sku: 'AB-12' })).toBe(true);
  });

  // Once a defect (#26, spec/value-codec.ts:26 + json-schema-check.ts:143): a regex's flags are not written into JSON
  // Schema, so /^eur$/i accepts 'EUR' in zod and the runtime refuses it; synth accepts the schema silently.
  it('accepts a value matching a case-insensitive regex, as zod does (or synth refuses such a schema)', () => {
    const Currency = z.object({ currency: z.string().regex(/^eur$/i) });
    expect(Currency.safeParse({ currency: 'EUR' }).success).toBe(true);
    const synthRefuses = !valueCodecSchema.safeParse(Currency).success;
    expect(synthRefuses || runtimeAccepts(Currency, { currency: 'EUR' })).toBe(true);
  });
});

describe('a tombstone on a consumer whose schema accepts null', () => {
  // Once a defect (#26, src/runtime/value-codec.ts:40): a record without a value (a tombstone, the delete of a
  // compacted topic) is refused before the schema is consulted, so even a schema that says null is a
  // value (z.object(...).nullable(), typed `Order | null` in the router package) sends every delete to
  // the DLQ at attempt 1; nothing in docs/ mentions tombstones. Class: the decoder decides for the schema.
  // Fix: hand a tombstone to the handler as null when the schema accepts null (else refuse, as now),
  // and say so in the spec docs.
  it('hands the handler null, as the generated type promises, instead of dead-lettering the delete', () => {
    const MaybeOrder = z.object({ orderId: z.string() }).nullable();
    expect(MaybeOrder.safeParse(null).success).toBe(true);
    expect(decoderOf(MaybeOrder)(null, record)).toBeNull();
  });
});

describe('the runtime check refuses what zod refuses, so the handler never gets a value its type lies about', () => {
  // Once a defect (#26, json-schema-check.ts:171-184): propertyNames is not enforced, so a z.record keyed by an enum
  // or a pattern lets through keys zod refuses; the handler's Record<'EUR' | 'USD', number> gets a 'GBP'.
  it('refuses a record key outside the enum a z.record is keyed by', () => {
    const Rates = z.record(z.enum(['EUR', 'USD']), z.number());
    const value = { EUR: 1, USD: 1.1, GBP: 0.8 };
    expect(Rates.safeParse(value).success).toBe(false);
    expect(runtimeAccepts(Rates, value)).toBe(false);
  });

  it('refuses a record key that does not match the pattern a z.record is keyed by', () => {
    const Counters = z.record(z.string().regex(/^sku-/), z.number());
    expect(Counters.safeParse({ other: 1 }).success).toBe(false);
    expect(runtimeAccepts(Counters, { other: 1 })).toBe(false);
  });

  // Once a defect (#26, json-schema-check.ts:118-123): oneOf is checked as anyOf. z.xor writes oneOf; a value that
  // matches both forms passes the runtime although zod (and JSON Schema) refuse it.
  it('refuses a value that matches both forms of a z.xor (oneOf)', () => {
    const Either = z.xor([z.object({ id: z.string() }), z.object({ ref: z.number() })]);
    const both = { id: 'a', ref: 1 };
    expect(Either.safeParse(both).success).toBe(false);
    expect(runtimeAccepts(Either, both)).toBe(false);
  });
});

describe('what held', () => {
  it.each([
    ['an integer beyond 2^53 for z.int()', z.object({ n: z.int() }), { n: 1e20 }],
    ['1e400 (Infinity after JSON.parse) for z.number()', z.object({ n: z.number() }), { n: 'INF' }],
    ['an extra field on a strict object', z.strictObject({ a: z.number() }), { a: 1, b: 2 }],
    ['a second item on a one-item tuple', z.tuple([z.string()]), ['a', 'b']],
    ['a record missing a key of its enum', z.record(z.enum(['a', 'b']), z.number()), { a: 1 }],
    ['an int32 beyond its range', z.object({ n: z.int32() }), { n: 3e9 }],
    ['an invalid uuid', z.object({ s: z.uuid() }), { s: 'nope' }],
  ])('refuses %s, as zod does', (_name, schema, value) => {
    const bytes = value && (value as { n?: unknown }).n === 'INF' ? Buffer.from('{"n":1e400}') : Buffer.from(JSON.stringify(value));
    expect(() => decoderOf(schema)(bytes, record)).toThrow();
  });

  it('refuses a tombstone and invalid UTF-8 as DeserializationErrors', () => {
    const decode = decoderOf(z.object({ a: z.number() }));
    expect(() => decode(null, record)).toThrow(DeserializationError);
    expect(() => decode(Buffer.from([0x7b, 0xff, 0x7d]), record)).toThrow(DeserializationError);
  });
});
