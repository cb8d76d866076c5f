import type { z } from 'zod';
import { closestName } from './closest-name';
import { specError } from './diagnostic';
import type { Diagnostic } from './diagnostic';

/** `['consumers', 0, 'ladder', 1]` -> `consumers[0].ladder[1]`, under a prefix. */
export function formatPath(segments: readonly PropertyKey[], prefix = ''): string {
  return segments.reduce<string>((path, segment) => {
    if (typeof segment === 'number') return `${path}[${segment}]`;
    return path ? `${path}.${String(segment)}` : String(segment);
  }, prefix);
}

/**
 * Parse options for every spec schema: zod 4 attaches the offending value to an issue
 * only when asked, and without it a wrong value cannot be told from a missing one.
 */
export const PARSE_OPTIONS = { reportInput: true } as const;

/**
 * Turns zod's issues into diagnostics whose messages say what to do. `fieldsAt` gives
 * the fields an object accepts at a path, for "did you mean" on a misspelt field.
 */
export function zodIssuesToDiagnostics(
  file: string,
  error: z.ZodError,
  prefix = '',
  fieldsAt: (path: readonly PropertyKey[]) => readonly string[] = () => [],
): Diagnostic[] {
  return issuesToDiagnostics(file, error.issues, [], prefix, fieldsAt);
}

function issuesToDiagnostics(
  file: string,
  issues: readonly z.core.$ZodIssue[],
  under: readonly PropertyKey[],
  prefix: string,
  fieldsAt: (path: readonly PropertyKey[]) => readonly string[],
): Diagnostic[] {
  return issues.flatMap((issue): Diagnostic[] => {
    const path = [...under, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const guess = closestName(key, fieldsAt(path));
        const fix = guess ? `did you mean '${guess}'? Rename it, or remove it` : 'remove it or check its spelling';
        return specError(file, formatPath([...path, key], prefix), `'${key}' is not a field here; ${fix}`);
      });
    }
    if (issue.code === 'invalid_union') {
      // A value that is clearly meant as one branch (an object for the object form) is
      // better told what that branch lacks than that it matches no branch at all.
      const meant = issue.errors.filter((branch) => !branch.every((i) => i.code === 'invalid_type' && i.path.length === 0));
      if (meant.length === 1) return issuesToDiagnostics(file, meant[0]!, path, prefix, fieldsAt);
    }
    return [specError(file, formatPath(path, prefix), describe(issue))];
  });
}

function describe(issue: z.core.$ZodIssue): string {
  const given = 'input' in issue && issue.input !== undefined;
  if (issue.code === 'invalid_type' && !given) return `this field is required; add it (expected ${article(issue.expected)})`;
  if (issue.code === 'invalid_type' && issue.expected === 'int') return `${issue.message}, not ${String(issue.input)}`;
  if (issue.code === 'invalid_type') return `expected ${article(issue.expected)} but found ${describeValue(issue.input)}; change the value`;
  // The schema's own messages name the value already (`'{input}' is not ...`).
  return issue.message;
}

function article(expected: string): string {
  const words: Record<string, string> = {
    string: 'a string', number: 'a number', boolean: 'true or false', object: 'an object', array: 'an array',
  };
  return words[expected] ?? expected;
}

/** A value as a sentence shows it: `the string '12'`, `the number 60000`, `a function`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string '${value}'`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') return 'an object';
  return `the ${typeof value} ${String(value)}`;
}
