import { compareStrings } from '../util/compare';

/** One problem found in a spec: where it is and a sentence saying how to fix it. */
export interface Diagnostic {
  readonly severity: 'error' | 'warning';
  /** The topology file, relative to the working directory. */
  readonly file: string;
  /** The field, as `consumers[0].ladder[1]`; empty for the file as a whole. */
  readonly path: string;
  readonly message: string;
}

export function specError(file: string, path: string, message: string): Diagnostic {
  return { severity: 'error', file, path, message };
}

export function specWarning(file: string, path: string, message: string): Diagnostic {
  return { severity: 'warning', file, path, message };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Files in order, then paths as written; errors before warnings at the same place. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      compareStrings(a.file, b.file) ||
      comparePaths(a.path, b.path) ||
      compareStrings(a.severity, b.severity) ||
      compareStrings(a.message, b.message),
  );
}

/** Compares `consumers[2]` before `consumers[10]`. */
function comparePaths(a: string, b: string): number {
  const pad = (path: string) => path.replace(/\d+/g, (digits) => digits.padStart(6, '0'));
  return compareStrings(pad(a), pad(b));
}

export function formatDiagnostic(d: Diagnostic): string {
  const where = d.path ? `${d.file}: ${d.path}` : d.file;
  return `${d.severity} ${where}: ${d.message}`;
}
