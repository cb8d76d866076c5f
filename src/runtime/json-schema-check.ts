import type { JsonSchema } from './descriptor';

/**
 * Checks a JSON value against the JSON Schema a spec's zod schema was written as. The
 * runtime depends on no schema library, so this covers what `z.toJSONSchema` writes: every
 * keyword the router package's types are made from (type, properties, required,
 * additionalProperties, items, prefixItems, enum, const, anyOf, oneOf, allOf, $ref) is
 * enforced, so a value that passes has the type the handler was given; the common bounds
 * (lengths, minimum and maximum, pattern, item counts, multipleOf) are checked too, and
 * other keywords (formats) are not. Returns the first problem, with its path, or undefined.
 */
export function jsonSchemaProblem(schema: JsonSchema, value: unknown): string | undefined {
  return problemAt(schema, value, '', schema, 0);
}

/** Deeper than any JSON a record holds: a recursive schema cannot loop. */
const MAX_DEPTH = 256;

type Schema = JsonSchema | boolean;

function problemAt(schema: Schema, value: unknown, path: string, root: JsonSchema, depth: number): string | undefined {
  if (schema === true) return undefined;
  if (schema === false || depth > MAX_DEPTH) return `${where(path)}is not allowed`;
  const next = (s: Schema, v: unknown, p: string) => problemAt(s, v, p, root, depth + 1);
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref, root);
    if (target === undefined) return `${where(path)}refers to ${schema.$ref}, which the schema lacks`;
    const problem = next(target, value, path);
    if (problem) return problem;
  }
  if ('const' in schema && !equal(schema.const, value)) return `${where(path)}must be ${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum) && !schema.enum.some((v) => equal(v, value))) return `${where(path)}must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alternatives = schema[key];
    if (Array.isArray(alternatives) && !alternatives.some((s) => next(s as Schema, value, path) === undefined)) {
      return `${where(path)}matches none of the ${alternatives.length} forms it may take`;
    }
  }
  if (Array.isArray(schema.allOf)) {
    for (const s of schema.allOf) {
      const problem = next(s as Schema, value, path);
      if (problem) return problem;
    }
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : undefined;
  if (types && !types.some((t) => isOfType(t, value))) return `${where(path)}must be ${types.join(' or ')}, not ${describe(value)}`;
  if (typeof value === 'string') return stringProblem(schema, value, path);
  if (typeof value === 'number') return numberProblem(schema, value, path);
  if (Array.isArray(value)) return arrayProblem(schema, value, path, next);
  if (value !== null && typeof value === 'object') return objectProblem(schema, value as Record<string, unknown>, path, next);
  return undefined;
}

function stringProblem(schema: JsonSchema, value: string, path: string): string | undefined {
  const length = [...value].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) return `${where(path)}must have at least ${schema.minLength} characters`;
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) return `${where(path)}must have at most ${schema.maxLength} characters`;
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return `${where(path)}must match ${schema.pattern}`;
  return undefined;
}

function numberProblem(schema: JsonSchema, value: number, path: string): string | undefined {
  if (typeof schema.minimum === 'number' && value < schema.minimum) return `${where(path)}must be at least ${schema.minimum}`;
  if (typeof schema.maximum === 'number' && value > schema.maximum) return `${where(path)}must be at most ${schema.maximum}`;
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) return `${where(path)}must be more than ${schema.exclusiveMinimum}`;
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) return `${where(path)}must be less than ${schema.exclusiveMaximum}`;
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0 && !Number.isInteger(value / schema.multipleOf)) return `${where(path)}must be a multiple of ${schema.multipleOf}`;
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
  for (const [name, field] of Object.entries(value)) {
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
