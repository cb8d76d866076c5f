import type { z } from 'zod';
import { closestName } from './closest-name';

/**
 * The top-level fields of an object spec that did not parse, and those that a misspelt
 * field was probably meant to be: the model has defaults in their place, so a rule that
 * reads one of them would only report a knock-on error of the problem already reported.
 */
export function unparsedFields(issues: readonly z.core.$ZodIssue[], known: readonly string[]): Set<string> {
  const fields = new Set<string>();
  for (const issue of issues) {
    const [field] = issue.path;
    if (typeof field === 'string') fields.add(field);
    else if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const meant = closestName(key, known);
        if (meant) fields.add(meant);
      }
    }
  }
  return fields;
}
