import fc from 'fast-check';
import { FOLDED_AUDIT_FIELDS, handledFromAuditLog } from '../src/runtime/dlq-handled-from-audit';
import type { AuditFields } from '../src/runtime/dlq-handled-from-audit';
import { propertyRuns } from './runtime/fault-runs';

const DLQ = 'orders.dlq';
const DAY = 86_400_000;
const EPOCH = Date.parse('2026-01-01T00:00:00Z');

/** An audit entry as `audit()` writes it, who and why included, of this DLQ or another. */
const anEntry = fc.record({
  action: fc.constantFrom('replayed', 'discarded', 'expired', 'no-records', 'handled-below', 'rejected'),
  dlqTopic: fc.constantFrom(DLQ, DLQ, DLQ, 'other.dlq'),
  partition: fc.integer({ min: 0, max: 1 }),
  offset: fc.integer({ min: -1, max: 12 }).map(String),
  // A `no-records` entry's range (its border is `offset`).
  from: fc.integer({ min: 0, max: 12 }).map(String),
  to: fc.integer({ min: 0, max: 12 }).map(String),
  belowOffset: fc.integer({ min: 0, max: 12 }).map(String),
  count: fc.integer({ min: 0, max: 4 }),
  // A `handled-below` entry's expired count (its floor is `belowOffset`).
  expiredTotal: fc.integer({ min: 0, max: 4 }).map(String),
  mark: fc.option(fc.constantFrom(`${EPOCH}/-1/10`, `${EPOCH + 3 * DAY}/-1/10`), { nil: undefined }),
  at: fc.integer({ min: 0, max: 4 }).map((days) => new Date(EPOCH + days * DAY).toISOString()),
  by: fc.constantFrom('ops', 'krt console'),
  reason: fc.constant('fixed upstream'),
  consumer: fc.constant('billing'),
});
/** The marks read from the log at the offsets entries name: the old records' or a later topic's. */
const marksRead = fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 12 }), fc.constantFrom(`${EPOCH}/-1/10`, `${EPOCH + 3 * DAY}/-1/10`)), { maxLength: 10 });

const onlyFolded = (entry: AuditFields): AuditFields => ({
  fields: Object.fromEntries(FOLDED_AUDIT_FIELDS.filter((name) => name in entry.fields).map((name) => [name, entry.fields[name]])),
});
const shown = (states: ReturnType<typeof handledFromAuditLog>) => JSON.stringify([...states], (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));

describe('the fields of an audit entry the fold reads', () => {
  it('are all a reader must keep: entries cut to them fold to the same handled state as whole entries', () => {
    fc.assert(
      fc.property(fc.array(anEntry, { maxLength: 25 }), marksRead, (written, read) => {
        const entries = written.map((fields) => ({ fields: Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) }));
        const marks = new Map<number, Map<bigint, string>>();
        for (const [partition, offset, mark] of read) marks.set(partition, (marks.get(partition) ?? new Map()).set(BigInt(offset), mark));
        const log = { starts: new Map([[0, 0n], [1, 2n]]), marks, covered: new Map([[0, { from: 0n, to: 13n }], [1, { from: 3n, to: 9n }]]) };
        expect(shown(handledFromAuditLog(entries.map(onlyFolded), DLQ, [0, 1], undefined, log))).toBe(shown(handledFromAuditLog(entries, DLQ, [0, 1], undefined, log)));
      }),
      propertyRuns(300),
    );
  });
});
