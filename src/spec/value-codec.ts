import { z } from 'zod';
import type { ValueCodecDescriptor } from '../runtime/descriptor';
import { compilePattern } from '../runtime/json-schema-check';

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
    let schema: Record<string, unknown>;
    const dropped: string[] = [];
    try {
      // The input side: values reach the handler as checked, not transformed (no defaults filled in), and a
      // z.object accepts fields it does not name, as zod does, so a producer adding a field sends nothing to the DLQ.
      // The override sees every zod schema written, so what JSON Schema would silently drop is found.
      schema = z.toJSONSchema(input as z.ZodType, { io: 'input', override: ({ zodSchema }) => dropped.push(...unwritable(zodSchema)) }) as Record<string, unknown>;
    } catch (error) {
      return problem(
        `the value schema cannot be written as JSON Schema (${error instanceof Error ? error.message : String(error)}), and the router package carries it so; keep it to JSON types, or declare a decode function as { decode, from }`,
      );
    }
    const what = [...new Set(dropped)].sort();
    if (what.length > 0) {
      return problem(
        `the value schema has ${what.join(', ')}, which the runtime cannot check as zod would (it checks the JSON Schema the router package carries); keep the schema to JSON types and plain checks, or declare a decode function as { decode, from }`,
      );
    }
    const broken = patternsOf(schema).find((pattern) => !compiles(pattern));
    if (broken !== undefined) return problem(`the value schema's pattern /${broken}/ is not a regular expression the runtime can compile without flags; write it without the 'u' syntax (e.g. no \\p{...}), or declare a decode function`);
    return { kind: 'json-schema', schema };
  }
  if (isZod3Schema(input)) {
    return problem(
      "is a zod 3 schema; the spec takes zod 4's (the router package carries it as the JSON Schema zod 4 writes): install zod 4 in the topology repository (npm install zod@^4) and import z from 'zod'",
    );
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

/**
 * What a zod schema means that JSON Schema does not say: refinements (checks of kind
 * 'custom': .refine, .superRefine), value rewrites (.trim(), .toLowerCase(): 'overwrite'),
 * transforms and pipes, coercions, .catch, and regex flags (JSON Schema writes the source only).
 */
function unwritable(schema: unknown): string[] {
  const def = (schema as { _zod?: { def?: ZodDef } })._zod?.def;
  if (!def) return [];
  const found: string[] = [];
  if (def.type === 'transform' || def.type === 'pipe') found.push('a transform or pipe');
  if (def.type === 'catch') found.push('a .catch');
  if (def.coerce === true) found.push('a coercion (z.coerce)');
  for (const check of def.checks ?? []) {
    const checkDef = check._zod?.def;
    if (checkDef?.check === 'custom') found.push('a refinement (.refine or .superRefine)');
    if (checkDef?.check === 'overwrite') found.push('a rewrite of the value (.trim, .toLowerCase, .overwrite)');
    if (checkDef?.format === 'regex' && checkDef.pattern instanceof RegExp && /[imsuv]/.test(checkDef.pattern.flags)) {
      found.push(`a regex with flags (/${checkDef.pattern.source}/${checkDef.pattern.flags}; spell the case or class out instead)`);
    }
  }
  return found;
}

interface ZodDef {
  readonly type?: string;
  readonly coerce?: boolean;
  readonly checks?: readonly { readonly _zod?: { readonly def?: { readonly check?: string; readonly format?: string; readonly pattern?: unknown } } }[];
}

/** Every `pattern` in a JSON Schema, wherever it is nested. */
function patternsOf(node: unknown): string[] {
  if (node === null || typeof node !== 'object') return [];
  if (Array.isArray(node)) return node.flatMap(patternsOf);
  return Object.entries(node).flatMap(([key, child]) => (key === 'pattern' && typeof child === 'string' ? [child] : patternsOf(child)));
}

function compiles(pattern: string): boolean {
  try {
    compilePattern(pattern);
    return true;
  } catch {
    return false;
  }
}

/** A zod 3 schema: `_def` and `safeParse`, without zod 4's `_zod`, which z.toJSONSchema reads. */
function isZod3Schema(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !('_zod' in value) && '_def' in value && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

/** A zod 4 schema, of this copy of zod or of the spec's own (both carry `_zod`). */
function isZodSchema(value: unknown): boolean {
  return value !== null && typeof value === 'object' && '_zod' in value && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}
