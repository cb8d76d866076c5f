/** JSON with keys sorted and cdktf's "//" metadata dropped, for comparing stacks by meaning. */
export function canonicalJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== '//')
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, child]) => [key, canonicalJson(child)]),
    );
  }
  return value;
}
