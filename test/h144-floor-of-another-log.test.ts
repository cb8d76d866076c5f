import { handledFromAuditLog } from '../src/runtime/dlq-handled-from-audit';
import type { AuditLogEntry } from '../src/dlq/audit-log';

// Review h144: a `handled-below` entry is taken by its floor clamped to the log start, so the
// checks made on the clamped value held nothing back: a floor of another log (an earlier topic
// of the DLQ's name, a stray writer) gave its expired count to this one.
const DLQ = 'orders.dlq';
const entry = (fields: Record<string, unknown>): AuditLogEntry => ({ partition: 0, offset: '0', key: '', action: String(fields.action), by: 'ops', at: '', fields: { dlqTopic: DLQ, ...fields } });
const floor = (belowOffset: string, expiredTotal: string) => entry({ action: 'handled-below', partition: 0, belowOffset, expiredTotal });
const shown = (entries: AuditLogEntry[], start: bigint, end?: bigint) => {
  const state = handledFromAuditLog(entries, DLQ, [0], end === undefined ? undefined : new Map([[0, end]]), { starts: new Map([[0, start]]) }).get(0)!;
  return { committed: state.committed, expired: state.expired };
};

describe('a handled-below entry that cannot be of this log', () => {
  it('is left out when its floor is past the partition\'s end, as the monitor\'s tail drops it (the session and the monitor agree)', () => {
    // Session: ends given. Before: the check ran on the floor clamped to the start (20), always within the end: expired 7.
    // The monitor's tail drops the entry (belowOffset past the end it read): expired 0. The next command committed 7.
    expect(shown([floor('1000', '7')], 20n, 50n)).toEqual({ committed: 0n, expired: 0n });
  });

  it('gives a DLQ created again (log start 0) no expired count of the earlier one', () => {
    // The earlier topic's last step: floor 30, 5 expired. The new topic holds 40 records from offset 0, none handled.
    // Before: the floor clamped to 0 kept its count, kafka_dlq_expired_total 5 at once: a false page, and committed by the next command.
    expect(shown([floor('30', '5')], 0n, 40n)).toEqual({ committed: 0n, expired: 0n });
    expect(shown([floor('30', '5')], 0n)).toEqual({ committed: 0n, expired: 0n });
  });

  it('is left out when it counts more expired records than offsets below its floor (a stray writer\'s huge count)', () => {
    expect(shown([floor('10', '99999999999999999999')], 20n)).toEqual({ committed: 0n, expired: 0n });
    // Only the impossible one: the next best floor stands.
    expect(shown([floor('8', '3'), floor('10', '11')], 20n)).toEqual({ committed: 8n, expired: 3n });
  });

  it('still takes a floor of this log, above the start or below it', () => {
    expect(shown([floor('30', '5')], 20n, 40n)).toEqual({ committed: 20n, expired: 5n });
    expect(shown([floor('12', '12')], 20n, 40n)).toEqual({ committed: 12n, expired: 12n });
  });
});

describe('a handled-below entry of an earlier topic of the name, within the checks above', () => {
  // Left: the earlier topic handled offsets 0..499 (its last step's floor: 500, none expired),
  // was deleted and created again with the audit log kept. The new topic's retention deleted
  // its offsets 0..99, never handled: 100 records expired unhandled; it has grown past 500 (a
  // smaller end leaves the floor out, above). The old floor, clamped to
  // the new log start (100), passes them as handled: kafka_dlq_expired_total stays 0 (silence)
  // once the new log's commits are gone, and the next command commits 0. Before handled-below
  // the old record entries did the same, but only until the audit log's retention deleted them;
  // a floor is rewritten by every step, so it outlives them. A floor above the log start says
  // the record at the start was handled by the entry's time: one written later (by more than
  // STAMPED_AHEAD_MS) shows the floor is another log's. The fold could check that where it is
  // given the record at the start, but neither reader reads it (offsetsToCheck reads from the
  // lowest offset an entry names, and extending each read to the log start reads a partition's
  // whole retention), so this is left to a change of the readers. Where the reader knows the
  // DLQ's topic id, the floor names the old topic's and is left out (the describe below).
  it.failing('is left out when the record at the log start was written after it', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const old = entry({ action: 'handled-below', partition: 0, belowOffset: '500', expiredTotal: '0', at });
    const written = new Map([[0, new Map([[100n, Date.parse('2026-06-01T00:00:00.000Z')]])]]);
    const marks = new Map([[0, new Map([[100n, 'new-record']])]]);
    const state = handledFromAuditLog([old], DLQ, [0], new Map([[0, 600n]]), { starts: new Map([[0, 100n]]), marks, written, covered: new Map([[0, { from: 100n, to: 101n }]]) }).get(0)!;
    expect({ committed: state.committed, expired: state.expired }).toEqual({ committed: 0n, expired: 0n });
  });
});

describe('a handled-below entry naming a topic id, where the reader knows the DLQ\'s id', () => {
  // The case above, closed where ids are read (the CLI through the Confluent client): the old
  // topic's floor names its id, the new topic has another.
  const withId = (id: string) => entry({ action: 'handled-below', partition: 0, belowOffset: '500', expiredTotal: '0', at: '2026-01-01T00:00:00.000Z', dlqTopicId: id });
  const fold = (entries: AuditLogEntry[], topicId?: string) => {
    const state = handledFromAuditLog(entries, DLQ, [0], new Map([[0, 600n]]), { starts: new Map([[0, 100n]]), ...(topicId === undefined ? {} : { topicId }) }).get(0)!;
    return { committed: state.committed, expired: state.expired };
  };

  it('is left out when it names another id than the DLQ\'s', () => {
    expect(fold([withId('old-topic-id')], 'new-topic-id')).toEqual({ committed: 0n, expired: 0n });
  });

  it('is taken when it names the DLQ\'s id, and judged by its offsets alone where the reader knows no id', () => {
    expect(fold([withId('new-topic-id')], 'new-topic-id')).toEqual({ committed: 100n, expired: 0n });
    expect(fold([withId('old-topic-id')])).toEqual({ committed: 100n, expired: 0n });
  });
});
