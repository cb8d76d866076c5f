import { handledFromAuditLog, offsetsToCheck } from '../src/runtime/dlq-handled-from-audit';
import type { AuditLogEntry } from '../src/dlq/audit-log';
import { handledRanges, isHandled } from '../src/runtime/dlq-handled';
import { runNow } from '../src/runtime/sliced-work';

const DLQ = 'orders.dlq';
const entry = (fields: Record<string, unknown>): AuditLogEntry => ({ partition: 0, offset: '0', key: '', action: String(fields.action), by: 'ops', at: '', fields: { dlqTopic: DLQ, ...fields } });
const decision = (action: string, partition: number, offset: number) => entry({ action, partition, offset: String(offset) });

describe('the handled state of a DLQ rebuilt from its audit log', () => {
  it('marks every replayed and discarded record of its partition handled, and nothing else', () => {
    const states = handledFromAuditLog([decision('replayed', 0, 0), decision('discarded', 0, 1), decision('replayed', 0, 5), decision('replayed', 1, 2)], DLQ, [0, 1, 2]);
    expect(states.get(0)!.committed).toBe(2n);
    expect(handledRanges(states.get(0)!)).toEqual([{ from: 5n, to: 5n }]);
    expect([0n, 1n, 2n, 3n].map((o) => isHandled(states.get(1)!, o))).toEqual([false, false, true, false]);
    expect(states.get(2)!.committed).toBe(0n);
  });

  it('starts past the expired ranges a command passed, with their counts as the partition\'s expired records', () => {
    const states = handledFromAuditLog(
      [entry({ action: 'expired', partition: 0, count: 3, belowOffset: '10' }), entry({ action: 'expired', partition: 0, count: 2, belowOffset: '20' }), decision('replayed', 0, 20)],
      DLQ,
      [0],
    );
    expect({ committed: states.get(0)!.committed, expired: states.get(0)!.expired }).toEqual({ committed: 21n, expired: 5n });
  });

  it('ignores entries of another DLQ and entries it cannot read', () => {
    const states = handledFromAuditLog([entry({ action: 'replayed', partition: 0, offset: '0', dlqTopic: 'other.dlq' }), entry({ action: 'replayed', partition: 0, offset: 'x' }), entry({ unreadable: '{' })], DLQ, [0]);
    expect(states.get(0)!.committed).toBe(0n);
  });
});

describe('the floor a step recorded (`handled-below` entries)', () => {
  const floor = (partition: number, belowOffset: number, expiredTotal: number) => entry({ action: 'handled-below', partition, belowOffset: String(belowOffset), expiredTotal: String(expiredTotal) });
  const fold = (entries: AuditLogEntry[], start: bigint) => handledFromAuditLog(entries, DLQ, [0], undefined, { starts: new Map([[0, start]]) }).get(0)!;
  const shown = (state: ReturnType<typeof fold>) => ({ committed: state.committed, expired: state.expired });

  it('passes every offset below the highest floor, with its expired count, where the records are gone', () => {
    expect(shown(fold([floor(0, 4, 1), floor(0, 9, 2), floor(0, 7, 5)], 20n))).toEqual({ committed: 9n, expired: 2n });
  });

  it('passes nothing at or above the log start: the record entries say what is handled there', () => {
    expect(shown(fold([floor(0, 9, 2)], 6n))).toEqual({ committed: 6n, expired: 2n });
    expect(shown(fold([floor(0, 9, 2), decision('discarded', 0, 6), decision('discarded', 0, 7)], 6n))).toEqual({ committed: 8n, expired: 2n });
  });

  it('adds the expired ranges passed above it, not those it already counts', () => {
    const entries = [entry({ action: 'expired', partition: 0, count: 2, belowOffset: '3' }), floor(0, 5, 2), entry({ action: 'expired', partition: 0, count: 4, belowOffset: '12' })];
    expect(shown(fold(entries, 12n))).toEqual({ committed: 12n, expired: 6n });
  });

  it('is left out where the log start is not known, when malformed, and past the partition\'s end', () => {
    expect(handledFromAuditLog([floor(0, 9, 2)], DLQ, [0]).get(0)!.committed).toBe(0n);
    expect(shown(fold([entry({ action: 'handled-below', partition: 0, belowOffset: '9', expiredTotal: 2 }), entry({ action: 'handled-below', partition: 0, belowOffset: '-9', expiredTotal: '0' })], 20n))).toEqual({ committed: 0n, expired: 0n });
    expect(handledFromAuditLog([floor(0, 9, 2)], DLQ, [0], new Map([[0, 8n]]), { starts: new Map([[0, 20n]]) }).get(0)!.committed).toBe(0n);
  });
});

describe('the handled state rebuilt from an audit log naming offsets past the partition\'s end', () => {
  it('leaves out every entry whose offset the partition has not reached, and keeps an expired range up to the end itself', () => {
    const ends = new Map([[0, 10n], [1, 4n]]);
    const states = handledFromAuditLog(
      [entry({ action: 'expired', partition: 0, count: 3, belowOffset: '99999999999999999999' }), decision('replayed', 0, 10), decision('replayed', 0, 3), entry({ action: 'expired', partition: 1, count: 4, belowOffset: '4' })],
      DLQ,
      [0, 1],
      ends,
    );
    expect({ committed: states.get(0)!.committed, runs: handledRanges(states.get(0)!), expired: states.get(0)!.expired }).toEqual({ committed: 0n, runs: [{ from: 3n, to: 3n }], expired: 0n });
    expect(states.get(1)!.committed).toBe(4n);
  });
});

describe('the handled state rebuilt from an audit log that names records of an earlier topic of the same name', () => {
  const marked = (action: string, partition: number, offset: number, mark: string) => entry({ action, partition, offset: String(offset), mark });

  it('takes an entry with a mark only when the record this log holds at its offset has that mark', () => {
    const marks = new Map([[0, new Map([[0n, 'new-0'], [1n, 'old-1'], [2n, 'new-2']])]]);
    const states = handledFromAuditLog([marked('replayed', 0, 0, 'old-0'), marked('replayed', 0, 1, 'old-1'), marked('discarded', 0, 2, 'old-2')], DLQ, [0], new Map([[0, 3n]]), { starts: new Map([[0, 0n]]), marks });
    expect([0n, 1n, 2n].map((o) => isHandled(states.get(0)!, o))).toEqual([false, true, false]);
  });

  it('still takes an entry without a mark (written by an earlier release), and one naming a record below the log start', () => {
    const states = handledFromAuditLog([decision('replayed', 0, 5), marked('replayed', 0, 1, 'gone')], DLQ, [0], new Map([[0, 10n]]), { starts: new Map([[0, 3n]]), marks: new Map() });
    expect([1n, 5n].map((o) => isHandled(states.get(0)!, o))).toEqual([true, true]);
  });

  it('leaves out an expired range above the partition\'s log start: within one log the log start never moves back', () => {
    const states = handledFromAuditLog([entry({ action: 'expired', partition: 0, count: 3, belowOffset: '3' }), entry({ action: 'expired', partition: 1, count: 2, belowOffset: '2' })], DLQ, [0, 1], new Map([[0, 10n], [1, 10n]]), { starts: new Map([[0, 0n], [1, 2n]]) });
    expect([states.get(0)!.committed, states.get(0)!.expired, states.get(1)!.committed, states.get(1)!.expired]).toEqual([0n, 0n, 2n, 2n]);
  });

  it('says which offsets to read to check the entries: from the lowest to the highest entry still in the log, marked or not (its record\'s time tells too)', () => {
    const entries = [marked('replayed', 0, 7, 'a'), marked('discarded', 0, 4, 'b'), marked('replayed', 0, 1, 'below the log start'), marked('replayed', 0, 12, 'past the end'), decision('replayed', 1, 3), marked('replayed', 2, 0, 'c')];
    expect(runNow(offsetsToCheck(entries, DLQ, [0, 1], new Map([[0, 10n], [1, 10n], [2, 10n]]), new Map([[0, 2n]])))).toEqual(new Map([[0, { from: 4n, to: 7n }], [1, { from: 3n, to: 3n }]]));
  });
});

describe('the handled state rebuilt from entries of an earlier topic that carry no mark', () => {
  const at = (iso: string, fields: Record<string, unknown>) => entry({ at: iso, ...fields });
  const starts = new Map([[0, 0n], [1, 0n]]);
  const ends = new Map([[0, 10n], [1, 10n]]);

  it('leaves out an unmarked entry whose record was written more than an hour after the entry', () => {
    const written = new Map([[0, new Map([[1n, Date.parse('2026-01-01T02:00:01Z')], [2n, Date.parse('2026-01-01T00:59:00Z')]])]]);
    const marks = new Map([[0, new Map([[1n, 'a'], [2n, 'b']])]]);
    const states = handledFromAuditLog(
      [at('2026-01-01T01:00:00Z', { action: 'replayed', partition: 0, offset: '1' }), at('2026-01-01T02:00:02Z', { action: 'replayed', partition: 0, offset: '2' })],
      DLQ,
      [0],
      ends,
      { starts, marks, written },
    );
    expect([1n, 2n].map((o) => isHandled(states.get(0)!, o))).toEqual([false, true]);
  });

  it('leaves out every entry, of any action and partition, written no later than one whose record has another mark', () => {
    const marks = new Map([[1, new Map([[4n, 'new']])]]);
    const states = handledFromAuditLog(
      [
        at('2026-01-01T00:00:00Z', { action: 'expired', partition: 0, count: 2, belowOffset: '0' }),
        at('2026-01-01T00:00:00Z', { action: 'replayed', partition: 0, offset: '3' }),
        at('2026-01-02T00:00:00Z', { action: 'replayed', partition: 1, offset: '4', mark: 'old' }),
        at('2026-01-03T00:00:00Z', { action: 'discarded', partition: 0, offset: '5' }),
      ],
      DLQ,
      [0, 1],
      ends,
      { starts, marks, written: new Map() },
    );
    expect({ expired: states.get(0)!.expired, p0: [3n, 5n].map((o) => isHandled(states.get(0)!, o)), p1: isHandled(states.get(1)!, 4n) }).toEqual({ expired: 0n, p0: [false, true], p1: false });
  });
});

describe('an entry shown to be of another log by its record\'s time alone', () => {
  it('is left out alone: the entries written before it are taken (a DLQ producer\'s clock may run ahead)', () => {
    const written = new Map([[0, new Map([[4n, Date.parse('2026-01-02T03:00:00Z')]])]]);
    const marks = new Map([[0, new Map([[2n, 'a'], [4n, 'b']])]]);
    const states = handledFromAuditLog(
      [entry({ at: '2026-01-01T00:00:00Z', action: 'replayed', partition: 0, offset: '2' }), entry({ at: '2026-01-02T00:00:00Z', action: 'replayed', partition: 0, offset: '4' })],
      DLQ,
      [0],
      new Map([[0, 10n]]),
      { starts: new Map([[0, 0n]]), marks, written },
    );
    expect([2n, 4n].map((o) => isHandled(states.get(0)!, o))).toEqual([true, false]);
  });
});

describe('the offsets a commit passed as holding no record (`no-records` entries)', () => {
  const passed = (from: number, to: number, border: number, extra: Record<string, unknown> = {}) => entry({ action: 'no-records', partition: 0, from: String(from), to: String(to), offset: String(border), ...extra });
  // Offsets 0, 1, 5 records, replayed; 2-4 and 6 markers; read from 0 to 7.
  const log = (marks: Record<number, string>, start = 0n) => ({ starts: new Map([[0, start]]), marks: new Map([[0, new Map(Object.entries(marks).map(([o, m]) => [BigInt(o), m]))]]), covered: new Map([[0, { from: 0n, to: 7n }]]) });
  const records = { 0: 'm0', 1: 'm1', 5: 'm5' };

  it('passes them next to the records handled, as the commit did', () => {
    const states = handledFromAuditLog([decision('replayed', 0, 0), decision('replayed', 0, 1), decision('replayed', 0, 5), passed(2, 4, 1), passed(6, 6, 5)], DLQ, [0], undefined, log(records));
    expect(states.get(0)!.committed).toBe(7n);
  });

  it('leaves out a range whose border no entry it takes handles', () => {
    const states = handledFromAuditLog([decision('replayed', 0, 0), passed(2, 4, 1)], DLQ, [0], undefined, log(records));
    expect(states.get(0)!.committed).toBe(1n);
  });

  // Only that entry (review h143): a stray writer needs no mark to write one, and one such entry voided every entry before it.
  it('leaves out a range holding a record this log has (an earlier log\'s markers, or a stray writer\'s), and only that entry', () => {
    const at = (day: number) => ({ at: new Date(Date.UTC(2026, 0, day)).toISOString() });
    const states = handledFromAuditLog(
      [entry({ action: 'replayed', partition: 0, offset: '1', ...at(1) }), passed(2, 4, 1, at(1)), entry({ action: 'replayed', partition: 0, offset: '0', ...at(2) })],
      DLQ,
      [0],
      undefined,
      log({ 0: 'm0', 1: 'm1', 2: 'm2', 3: 'm3', 4: 'm4' }),
    );
    expect(states.get(0)!.committed).toBe(2n);
    expect(handledRanges(states.get(0)!)).toEqual([]);
  });

  it('leaves out a range whose border record has another mark now', () => {
    const states = handledFromAuditLog([decision('replayed', 0, 1), passed(2, 4, 1, { mark: 'old' })], DLQ, [0], undefined, log(records));
    expect(handledRanges(states.get(0)!)).toEqual([{ from: 1n, to: 1n }]);
  });

  it('leaves out a range above the log start that the marks\' read did not cover, or without marks at all', () => {
    const entries = [decision('replayed', 0, 1), passed(2, 4, 1)];
    expect(handledRanges(handledFromAuditLog(entries, DLQ, [0], undefined, { ...log(records), covered: new Map([[0, { from: 0n, to: 3n }]]) }).get(0)!)).toEqual([{ from: 1n, to: 1n }]);
    expect(handledRanges(handledFromAuditLog(entries, DLQ, [0], undefined, { starts: new Map([[0, 0n]]) }).get(0)!)).toEqual([{ from: 1n, to: 1n }]);
  });

  it('passes a range below the log start next to a record handled there, so no marker counts as expired', () => {
    const states = handledFromAuditLog([decision('replayed', 0, 0), decision('replayed', 0, 1), decision('replayed', 0, 5), passed(2, 4, 1)], DLQ, [0], undefined, { starts: new Map([[0, 6n]]) });
    expect({ committed: states.get(0)!.committed, expired: states.get(0)!.expired }).toEqual({ committed: 6n, expired: 0n });
  });

  it('passes a range from the partition\'s first offset (border -1) once the read found no record in it', () => {
    const states = handledFromAuditLog([passed(0, 1, -1), decision('replayed', 0, 2)], DLQ, [0], undefined, { ...log({ 2: 'm2' }), covered: new Map([[0, { from: 0n, to: 3n }]]) });
    expect(states.get(0)!.committed).toBe(3n);
  });

  it('asks the marks of the range and its border to be read, within the log', () => {
    const ranges = runNow(offsetsToCheck([passed(2, 4, 1), passed(6, 9, 5)], DLQ, [0], new Map([[0, 8n]]), new Map([[0, 0n]])));
    expect(ranges.get(0)).toEqual({ from: 1n, to: 7n });
  });
});
