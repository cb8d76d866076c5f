import type { JsonSchema } from './descriptor';

/**
 * Checks a JSON value against the JSON Schema a spec's zod schema was written as. The
 * runtime depends on no schema library, so this covers what `z.toJSONSchema` writes: every
 * keyword the router package's types are made from (type, properties, required,
 * additionalProperties, propertyNames, items, prefixItems, enum, const, anyOf, oneOf, allOf,
 * $ref) is enforced, so a value that passes has the type the handler was given; the common
 * bounds (lengths, minimum and maximum, pattern, item counts, multipleOf) are checked as zod
 * checks them, and other keywords (formats) are not. Returns the first problem, with its
 * path, or undefined.
 */
export function jsonSchemaProblem(schema: JsonSchema, value: unknown): string | undefined {
  return jsonSchemaChecker(schema)(value);
}

/** The check of one schema, its patterns compiled once (a consumer checks every record against the same schema). */
export function jsonSchemaChecker(schema: JsonSchema): (value: unknown) => string | undefined {
  const patterns = new Map<string, RegExp>();
  const matches = (pattern: string, value: string) => {
    let regex = patterns.get(pattern);
    if (regex === undefined) patterns.set(pattern, (regex = compilePattern(pattern)));
    return regex.test(value);
  };
  return (value) => problemAt(schema, value, '', { root: schema, matches }, 0);
}

/**
 * A schema's `pattern` as zod ran it: zod writes a regex's source without its flags, and runs
 * a spec's regex without the 'u' flag (under which `\-` is a syntax error), so neither does
 * this; a source with Unicode property escapes (zod's own z.emoji()) only means something
 * with 'u'. Throws a SyntaxError for a source that does not compile (krt validate refuses it).
 */
export function compilePattern(pattern: string): RegExp {
  return /\\[pP]\{/.test(pattern) ? new RegExp(pattern, 'u') : new RegExp(pattern);
}

/**
 * `value % step === 0` for floats, as zod decides it: 0.3 is a multiple of 0.1 although
 * 0.3 / 0.1 is 2.9999999999999996 (both round to doubles before the division rounds again).
 */
export function isMultipleOf(value: number, step: number): boolean {
  const ratio = value / step;
  return Math.abs(ratio - Math.round(ratio)) < 4 * Number.EPSILON * Math.max(Math.abs(ratio), 1);
}

interface Context {
  readonly root: JsonSchema;
  readonly matches: (pattern: string, value: string) => boolean;
}

/** Deeper than any JSON a record holds: a recursive schema cannot loop. */
const MAX_DEPTH = 256;

type Schema = JsonSchema | boolean;

function problemAt(schema: Schema, value: unknown, path: string, context: Context, depth: number): string | undefined {
  if (schema === true) return undefined;
  if (schema === false || depth > MAX_DEPTH) return `${where(path)}is not allowed`;
  const next = (s: Schema, v: unknown, p: string) => problemAt(s, v, p, context, depth + 1);
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref, context.root);
    if (target === undefined) return `${where(path)}refers to ${schema.$ref}, which the schema lacks`;
    const problem = next(target, value, path);
    if (problem) return problem;
  }
  if ('const' in schema && !equal(schema.const, value)) return `${where(path)}must be ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum) && !schema.enum.some((v) => equal(v, value))) return `${where(path)}must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((s) => next(s as Schema, value, path) === undefined)) {
    return `${where(path)}matches none of the ${schema.anyOf.length} forms it may take`;
  }
  if (Array.isArray(schema.oneOf)) {
    // Exactly one (z.xor): a value that fits two forms is refused, as zod refuses it.
    const fits = schema.oneOf.filter((s) => next(s as Schema, value, path) === undefined).length;
    if (fits !== 1) return `${where(path)}${fits === 0 ? 'matches none' : `matches ${fits}`} of the ${schema.oneOf.length} forms it may take${fits === 0 ? '' : ', and must match exactly one'}`;
  }
  if (Array.isArray(schema.allOf)) {
    for (const s of schema.allOf) {
      const problem = next(s as Schema, value, path);
      if (problem) return problem;
    }
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : undefined;
  if (types && !types.some((t) => isOfType(t, value))) return `${where(path)}must be ${types.join(' or ')}, not ${describe(value)}`;
  if (typeof value === 'string') return stringProblem(schema, value, path, context);
  if (typeof value === 'number') return numberProblem(schema, value, path);
  if (Array.isArray(value)) return arrayProblem(schema, value, path, next);
  if (value !== null && typeof value === 'object') return objectProblem(schema, value as Record<string, unknown>, path, next);
  return undefined;
}

function stringProblem(schema: JsonSchema, value: string, path: string, context: Context): string | undefined {
  // UTF-16 units, as zod's min/max/length count them (and without copying a 5 MB string into an array).
  const length = value.length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) return `${where(path)}must have at least ${schema.minLength} characters`;
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) return `${where(path)}must have at most ${schema.maxLength} characters`;
  if (typeof schema.pattern === 'string' && !context.matches(schema.pattern, value)) return `${where(path)}must match ${schema.pattern}`;
  return undefined;
}

function numberProblem(schema: JsonSchema, value: number, path: string): string | undefined {
  if (typeof schema.minimum === 'number' && value < schema.minimum) return `${where(path)}must be at least ${schema.minimum}`;
  if (typeof schema.maximum === 'number' && value > schema.maximum) return `${where(path)}must be at most ${schema.maximum}`;
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) return `${where(path)}must be more than ${schema.exclusiveMinimum}`;
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) return `${where(path)}must be less than ${schema.exclusiveMaximum}`;
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0 && !isMultipleOf(value, schema.multipleOf)) return `${where(path)}must be a multiple of ${schema.multipleOf}`;
  return undefined;
}

type Next = (schema: Schema, value: unknown, path: string) => string | undefined;

function arrayProblem(schema: JsonSchema, value: unknown[], path: string, next: Next): string | undefined {
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) return `${where(path)}must have at least ${schema.minItems} items`;
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return `${where(path)}must have at most ${schema.maxItems} items`;
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : [];
  for (let i = 0; i < value.length; i++) {
    const itemSchema = i < prefix.length ? prefix[i] : (schema.items as Schema | undefined);
    if (itemSchema === undefined) continue;
    const problem = next(itemSchema, value[i], `${path}[${i}]`);
    if (problem) return problem;
  }
  return undefined;
}

function objectProblem(schema: JsonSchema, value: Record<string, unknown>, path: string, next: Next): string | undefined {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const name of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
    if (!Object.prototype.hasOwnProperty.call(value, name)) return `${where(join(path, name))}is missing`;
  }
  const names = schema.propertyNames as Schema | undefined;
  for (const [name, field] of Object.entries(value)) {
    // A z.record keyed by an enum or a pattern: a key outside it is refused, as zod refuses it.
    if (names !== undefined && next(names, name, join(path, name)) !== undefined) return `${where(join(path, name))}is not a key this value may have`;
    const fieldSchema = Object.prototype.hasOwnProperty.call(properties, name) ? properties[name] : (schema.additionalProperties as Schema | undefined);
    if (fieldSchema === false) return `${where(join(path, name))}is not a field this value has`;
    if (fieldSchema === undefined) continue;
    const problem = next(fieldSchema, field, join(path, name));
    if (problem) return problem;
  }
  return undefined;
}

function isOfType(type: string, value: unknown): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    default:
      return false;
  }
}

function resolve(ref: string, root: JsonSchema): Schema | undefined {
  if (ref === '#') return root;
  const found = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const defs = found ? (root[found[1]!] as Record<string, Schema> | undefined) : undefined;
  return found ? defs?.[decodeURIComponent(found[2]!)] : undefined;
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`.slice(0, 80);
}

const join = (path: string, name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? `${path}${path ? '.' : ''}${name}` : `${path}[${JSON.stringify(name)}]`);
const where = (path: string) => (path ? `${path} ` : 'the value ');
