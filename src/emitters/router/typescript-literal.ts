/** A JSON value as a TypeScript type with literal types, readonly throughout. */
export function literalType(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return 'readonly []';
    return `readonly [\n${value.map((v) => `${inner}${literalType(v, inner)}`).join(',\n')},\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${inner}readonly ${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${literalType(v, inner)};`);
    return `{\n${entries.join('\n')}\n${indent}}`;
  }
  return 'null';
}
