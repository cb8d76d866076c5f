/** Code-point order: the same on every machine and locale, so output stays byte-stable. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
