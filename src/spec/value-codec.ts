import { z } from 'zod';
import type { ValueCodecDescriptor } from '../runtime/descriptor';

/**
 * The spec's `value`: a zod schema over JSON, or `{ decode, from }`, made into what the
 * generated router package carries. Neither form can be carried as code (the package is
 * published without the spec), so a zod schema travels as the JSON Schema it is written
 * as, and a decode function as the package and export the service requires it from.
 */

/** An npm package name, optionally with a subpath: what a published package can `require`. */
export const PACKAGE_SPECIFIER_PATTERN = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(?:\/[A-Za-z0-9._~/-]+)?$/;
const EXPORT_NAME_PATTERN = /^[A-Za-z_$][\w$]*$/;

const FORMS = "a zod schema over JSON, e.g. z.object({ orderId: z.string() }), or { decode, from: '@acme/order-events' }";

export const valueCodecSchema = z.unknown().transform((input, ctx): ValueCodecDescriptor => {
  const problem = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  if (isZodSchema(input)) {
    try {
      // The input side: values reach the handler as checked, not transformed (no defaults filled in), and a
      // z.object accepts fields it does not name, as zod does, so a producer adding a field sends nothing to the DLQ.
      return { kind: 'json-schema', schema: z.toJSONSchema(input as z.ZodType, { io: 'input' }) as Record<string, unknown> };
    } catch (error) {
      return problem(
        `the value schema cannot be written as JSON Schema (${error instanceof Error ? error.message : String(error)}), and the router package carries it so; keep it to JSON types, or declare a decode function as { decode, from }`,
      );
    }
  }
  if (input === null || typeof input !== 'object' || typeof (input as { decode?: unknown }).decode !== 'function') {
    return problem(`is neither ${FORMS}`);
  }
  const { decode, from, export: exported, ...rest } = input as { decode: (...args: unknown[]) => unknown; from?: unknown; export?: unknown };
  const unknownKeys = Object.keys(rest);
  if (unknownKeys.length > 0) return problem(`has ${unknownKeys.map((k) => `'${k}'`).join(', ')}, which a decode codec does not take; write { decode, from, export? }`);
  if (typeof from !== 'string' || !PACKAGE_SPECIFIER_PATTERN.test(from)) {
    return problem(
      `${typeof from === 'string' ? `'${from}' is not a package name` : 'from is missing'}: the generated router package requires the decode function from there, and a published package reaches only packages; name the package that exports it, e.g. from: '@acme/order-events'`,
    );
  }
  const name = exported ?? decode.name;
  if (typeof name !== 'string' || !EXPORT_NAME_PATTERN.test(name)) {
    return problem(`the decode function has no name to require it by; set export to the name '${from}' exports it under, e.g. export: 'decodeOrder'`);
  }
  return { kind: 'decode', module: from, export: name };
});

/** A zod 4 schema, of this copy of zod or of the spec's own (both carry `_zod`). */
function isZodSchema(value: unknown): boolean {
  return value !== null && typeof value === 'object' && '_zod' in value && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}
