import type { z } from 'zod';
import { specError } from './diagnostic';
import type { Diagnostic } from './diagnostic';

/** `['consumers', 0, 'ladder', 1]` -> `consumers[0].ladder[1]`, under a prefix. */
export function formatPath(segments: readonly PropertyKey[], prefix = ''): string {
  return segments.reduce<string>((path, segment) => {
    if (typeof segment === 'number') return `${path}[${segment}]`;
    return path ? `${path}.${String(segment)}` : String(segment);
  }, prefix);
}

/** Turns zod's issues into diagnostics whose messages say what to do. */
export function zodIssuesToDiagnostics(file: string, error: z.ZodError, prefix = ''): Diagnostic[] {
  return error.issues.flatMap((issue): Diagnostic[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) =>
        specError(file, formatPath([...issue.path, key], prefix), `'${key}' is not a field here; remove it or check its spelling`),
      );
    }
    return [specError(file, formatPath(issue.path, prefix), describe(issue))];
  });
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return `this field is required; add it (expected ${article(issue.expected)})`;
    return `expected ${article(issue.expected)} but found ${describeValue(issue.input)}; change the value`;
  }
  if (issue.code === 'invalid_union') {
    return `${describeValue(issue.input)} is neither a duration such as '10m' nor an object { delay, partitions?, retention? }`;
  }
  return issue.message;
}

function article(expected: string): string {
  const words: Record<string, string> = {
    string: 'a string', number: 'a number', boolean: 'true or false', object: 'an object', array: 'an array',
  };
  return words[expected] ?? expected;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string '${value}'`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
