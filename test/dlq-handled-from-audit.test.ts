import { handledFromAuditLog } from '../src/runtime/dlq-handled-from-audit';
import type { AuditLogEntry } from '../src/dlq/audit-log';
import { handledRanges, isHandled } from '../src/runtime/dlq-handled';

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
