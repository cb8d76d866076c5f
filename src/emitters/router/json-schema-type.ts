/**
 * The TypeScript type of the values a JSON Schema accepts, for the JSON Schema zod writes
 * (`z.toJSONSchema`): what `z.infer` of the spec's schema gives, written out, so that the
 * router package types a handler's value without the spec's code. A keyword it does not
 * know widens to `unknown`, never narrows: a field that type-checks is one the schema has.
 */
type Schema = { readonly [key: string]: unknown } | boolean;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

export function jsonSchemaType(root: Schema): string {
  return typeOf(root, root, '', new Set());
}

function typeOf(schema: Schema, root: Schema, indent: string, resolving: Set<string>): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  const at = (next: Schema) => typeOf(next, root, indent, resolving);
  if (typeof schema.$ref === 'string') return reference(schema.$ref, root, indent, resolving);
  if ('const' in schema) return JSON.stringify(schema.const) ?? 'unknown';
  if (Array.isArray(schema.enum)) return union(schema.enum.map((v) => JSON.stringify(v) ?? 'unknown'));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(alternatives)) return union(alternatives.map((s) => at(s)));
  if (Array.isArray(schema.allOf)) return (schema.allOf as Schema[]).map((s) => parenthesized(at(s))).join(' & ') || 'unknown';
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length === 0) return 'unknown';
  return union(types.map((type) => typeOfType(type, schema, root, indent, resolving)));
}

function typeOfType(type: string, schema: { readonly [key: string]: unknown }, root: Schema, indent: string, resolving: Set<string>): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return arrayType(schema, root, indent, resolving);
    case 'object':
      return objectType(schema, root, indent, resolving);
    default:
      return 'unknown';
  }
}

function arrayType(schema: { readonly [key: string]: unknown }, root: Schema, indent: string, resolving: Set<string>): string {
  const at = (next: Schema) => typeOf(next, root, indent, resolving);
  const items = schema.items as Schema | undefined;
  if (Array.isArray(schema.prefixItems)) {
    // An element the check lets a value stop before (at or past minItems) is optional: the handler may get a shorter tuple.
    const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
    const fixed = (schema.prefixItems as Schema[]).map((s, i) => (i < minItems ? at(s) : `${parenthesized(at(s))}?`));
    const rest = items === undefined || items === false ? [] : [`...${parenthesized(at(items))}[]`];
    return `[${[...fixed, ...rest].join(', ')}]`;
  }
  return `${parenthesized(items === undefined ? 'unknown' : at(items))}[]`;
}

function objectType(schema: { readonly [key: string]: unknown }, root: Schema, indent: string, resolving: Set<string>): string {
  const inner = `${indent}  `;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const lines = Object.entries(properties).map(
    ([name, property]) => `${inner}${IDENTIFIER.test(name) ? name : JSON.stringify(name)}${required.has(name) ? '' : '?'}: ${typeOf(property, root, inner, resolving)};`,
  );
  const additional = schema.additionalProperties as Schema | undefined;
  // Absent: the fields it names, as z.infer of a z.object gives (extra fields pass unchecked, and untyped).
  if (additional !== undefined && additional !== false) {
    // Declared properties must fit the index signature, so a record of T with extra fields is widened.
    const value = Object.keys(properties).length > 0 ? 'unknown' : typeOf(additional, root, inner, resolving);
    lines.push(`${inner}[key: string]: ${value};`);
  }
  return lines.length === 0 ? '{}' : `{\n${lines.join('\n')}\n${indent}}`;
}

/** A local `#/$defs/...` reference, written out in place; a recursive one is `unknown`. */
function reference(ref: string, root: Schema, indent: string, resolving: Set<string>): string {
  if (ref === '#') return resolving.has(ref) ? 'unknown' : withResolving(ref, resolving, () => typeOf(root, root, indent, resolving));
  const found = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const defs = typeof root === 'object' ? (root[found?.[1] ?? ''] as Record<string, Schema> | undefined) : undefined;
  const target = found && defs?.[decodeURIComponent(found[2]!)];
  if (target === undefined || target === null || resolving.has(ref)) return 'unknown';
  return withResolving(ref, resolving, () => typeOf(target, root, indent, resolving));
}

function withResolving(ref: string, resolving: Set<string>, write: () => string): string {
  resolving.add(ref);
  try {
    return write();
  } finally {
    resolving.delete(ref);
  }
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.length === 0) return 'never';
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 1 ? unique[0]! : unique.map(parenthesized).join(' | ');
}

/** A union or intersection inside `[]`, `&` or `|` needs parentheses: one with `|` or `&` outside any bracket or string. */
function parenthesized(type: string): string {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < type.length; i++) {
    const c = type[i]!;
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if ('{[('.includes(c)) depth++;
    else if ('}])'.includes(c)) depth--;
    else if (depth === 0 && (c === '|' || c === '&')) return `(${type})`;
  }
  return type;
}
