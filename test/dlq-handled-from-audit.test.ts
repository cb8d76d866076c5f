import { handledFromAuditLog } from '../src/dlq/handled-from-audit';
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
