import { handledFromAuditLog } from '../../src/runtime/dlq-handled-from-audit';
import { isHandled } from '../../src/runtime/dlq-handled';

/**
 * h145 review: a `no-records` entry whose range holds a record in the log as read is wrong
 * (a stray writer's, or a bug's), and the fold left it out alone, so the record inside stayed
 * unhandled (dlq-audit-this-log.ts, anotherNoRecords: 'inside'). Entries naming the reader's
 * topic id skipped every check of their record, that one too: the same entry, naming the id,
 * made the record inside count as handled, never listed, and the DLQ alerts silent about it.
 * The id says which log an entry is of, not that the entry is right.
 */
const DLQ = 'orders.dlq';
const at = '2026-01-01T00:00:00.000Z';
const mark = (o: number) => `${1_700_000_000_000 + o}/3/7`;

function fold(topicIdOfEntries: string | undefined, readerId: string | undefined) {
  const id = topicIdOfEntries === undefined ? {} : { dlqTopicId: topicIdOfEntries };
  const entries = [
    { fields: { dlqTopic: DLQ, partition: 0, action: 'replayed', offset: '0', mark: mark(0), at, ...id } },
    // Offsets 1..3 passed as holding no record next to the handled 0: but the log holds a record at 2.
    { fields: { dlqTopic: DLQ, partition: 0, action: 'no-records', from: '1', to: '3', offset: '0', mark: mark(0), at, ...id } },
  ];
  const marks = new Map([[0, new Map([[0n, mark(0)], [2n, mark(2)]])]]);
  const log = { starts: new Map([[0, 0n]]), marks, covered: new Map([[0, { from: 0n, to: 5n }]]), ...(readerId === undefined ? {} : { topicId: readerId }) };
  return handledFromAuditLog(entries, DLQ, [0], new Map([[0, 5n]]), log).get(0)!;
}

describe('a no-records entry whose range holds a record', () => {
  it('is left out without ids: the record stays unhandled', () => {
    expect(isHandled(fold(undefined, undefined), 2n)).toBe(false);
  });

  it('is left out when it names the reader\'s topic id too', () => {
    expect(isHandled(fold('this-id', 'this-id'), 2n)).toBe(false);
  });
});

describe('a replayed entry naming the reader\'s topic id whose record shows another mark', () => {
  it('is left out alone: the record at its offset stays unhandled, the entries before it stay taken', () => {
    const id = { dlqTopicId: 'this-id' };
    const entries = [
      { fields: { dlqTopic: DLQ, partition: 0, action: 'replayed', offset: '0', mark: mark(0), at, ...id } },
      // Within one log an offset's record never changes: another mark there is a wrong entry.
      { fields: { dlqTopic: DLQ, partition: 0, action: 'replayed', offset: '1', mark: 'another/1/1', at: '2026-01-01T00:05:00.000Z', ...id } },
    ];
    const marks = new Map([[0, new Map([[0n, mark(0)], [1n, mark(1)]])]]);
    const state = handledFromAuditLog(entries, DLQ, [0], new Map([[0, 5n]]), { starts: new Map([[0, 0n]]), marks, covered: new Map([[0, { from: 0n, to: 5n }]]), topicId: 'this-id' }).get(0)!;
    expect([isHandled(state, 0n), isHandled(state, 1n)]).toEqual([true, false]);
  });
});
