/**
 * The spec's words that the model and the alert modules read too. A file of its own,
 * importing nothing, so that the alert modules (which the spec's override keys come from)
 * can use them without an import cycle through the spec's types.
 */

/** `money`: one DLQ record is an incident; `analytics`: about a thousand are. */
export type Criticality = 'money' | 'standard' | 'analytics';
export const CRITICALITIES = ['money', 'standard', 'analytics'] as const;

export type Severity = 'critical' | 'warning';
export const SEVERITIES = ['critical', 'warning'] as const;

/**
 * - `unordered`: failures go to the tiers; later records of the key go on (the handler must tolerate reordering).
 * - `park-by-key`: later records of a key in retry wait behind it, in order; costs a durable set of failing keys.
 * - `in-place-only`: retry in the handler only, then the DLQ; keeps order, blocks the partition while retrying.
 */
export type OrderingStrategy = 'unordered' | 'park-by-key' | 'in-place-only';
export const ORDERING_STRATEGIES = ['unordered', 'park-by-key', 'in-place-only'] as const;
