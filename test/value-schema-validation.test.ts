import { z } from 'zod';
import { aConsumer, aTopology, compile, problems } from './helpers/specs';

/**
 * #26 (typed values): the runtime checks only what JSON Schema can say, so docs/spec.md (typed
 * values) promises that krt validate refuses, with the fix, a schema whose meaning JSON Schema
 * would drop (a z.date(), refinements, rewrites, transforms, coercions, regex flags).
 */
const consumerWith = (value: unknown) => problems(compile(aTopology({ consumers: [aConsumer({ value })] })));

describe('krt validate on a value schema the runtime cannot check as zod would', () => {
  it('refuses a z.date() (held)', () => {
    expect(consumerWith(z.object({ at: z.date() }))).not.toEqual([]);
  });

  // Once a defect (#26, src/spec/value-codec.ts:26): z.toJSONSchema(..., { io: 'input' }) writes a refinement as its
  // base type and a transform, a coercion or a .catch as its input side without throwing, so synth
  // accepts them; the runtime then hands the handler values zod refuses (a refine) or refuses values zod
  // accepts (coerce, catch), and the handler's type is the input side, not what zod would give. The
  // docs promise the opposite. Class: only what toJSONSchema throws on is refused. Fix: walk the schema
  // (its _zod.def) and refuse checks of kind 'custom', transforms, pipes, coercions and catch, with the
  // sentence the docs give; or correct the docs.
  it.each([
    ['a refinement', z.object({ amountCents: z.number().refine((n) => n % 5 === 0) })],
    ['a superRefine', z.object({ from: z.string(), to: z.string() }).superRefine(() => {})],
    ['a transform', z.object({ amountCents: z.string().transform(Number) })],
    ['a coercion', z.object({ amountCents: z.coerce.number() })],
  ])('refuses %s, as docs/spec.md says', (_name, schema) => {
    expect(consumerWith(schema)).not.toEqual([]);
  });

  // Once a defect (#26, same place, and src/runtime/json-schema-check.ts:143): a regex's flags are lost in JSON Schema
  // and the runtime compiles patterns with 'u', so /^eur$/i and /^[A-Z]+\-\d+$/ pass validation and then
  // refuse valid values at run time (see test/runtime/json-schema-check-fidelity.test.ts).
  it('refuses a regex with flags, or one the runtime cannot compile as written', () => {
    expect(consumerWith(z.object({ currency: z.string().regex(/^eur$/i) }))).not.toEqual([]);
  });
});

describe('krt validate on a value schema the runtime checks as zod does', () => {
  it('names what it refuses and how to fix it', () => {
    const [message] = consumerWith(z.object({ amountCents: z.number().refine((n) => n % 5 === 0), name: z.string().trim() }));
    expect(message).toContain('a refinement (.refine or .superRefine), a rewrite of the value (.trim, .toLowerCase, .overwrite)');
    expect(message).toContain('declare a decode function');
  });

  it('refuses a pattern the runtime cannot compile', () => {
    // \p{...} makes the runtime compile with 'u' (zod's z.emoji() needs it), under which \- is a syntax error.
    expect(consumerWith(z.object({ name: z.string().regex(new RegExp('^\\p{L}\\-$')) }))).toEqual([expect.stringContaining('is not a regular expression the runtime can compile')]);
  });

  it("accepts plain regexes, zod's own formats and a nullable schema", () => {
    expect(consumerWith(z.object({ sku: z.string().regex(/^[A-Z]+\-\d+$/), id: z.uuid(), mood: z.emoji(), at: z.iso.datetime() }).nullable())).toEqual([]);
  });
});

describe('krt validate on a zod 3 schema', () => {
  // What zod 3's z.object(...) is at run time: _def and safeParse, no _zod (zod 4's internals, which
  // z.toJSONSchema reads). A topology repository on zod 3 passed a zod schema and was told its value
  // "is neither a zod schema over JSON ... or { decode, from }".
  const zod3Object = { _def: { typeName: 'ZodObject', shape: () => ({}) }, safeParse: () => ({ success: true }), parse: (v: unknown) => v };

  it('says the schema is zod 3 and that the spec takes zod 4', () => {
    expect(consumerWith(zod3Object)).toEqual([expect.stringMatching(/zod 3 schema.*zod 4/)]);
  });
});
