/** An audit entry as the fold reads it: the JSON fields `audit()` wrote (src/dlq/audit.ts). */
export interface AuditFields {
  readonly fields: Readonly<Record<string, unknown>>;
}

/**
 * Every field of an entry the fold reads (dlq-handled-from-audit.ts and dlq-audit-this-log.ts). A reader that
 * keeps only these between reads (the monitor's tail) folds to the same state as one that
 * keeps whole entries; a field the fold starts reading goes here, or that reader misses it
 * (test/dlq-handled-from-audit-fields.test.ts holds the two to the same result).
 */
export const FOLDED_AUDIT_FIELDS = ['dlqTopic', 'action', 'partition', 'offset', 'belowOffset', 'count', 'mark', 'at', 'from', 'to', 'expiredTotal', 'dlqTopicId'] as const;
