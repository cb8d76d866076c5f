import { auditPage, auditTable } from '../../src/console/pages/actions';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import type { AuditLogEntry } from '../../src/dlq/audit-log';

const entry = (action: string, fields: Record<string, unknown>): AuditLogEntry => ({ partition: 0, offset: '7', key: '0:12', action, by: 'ops', at: '2026-12-07T12:00:00.000Z', fields: { action, ...fields } });

describe("the console's audit table", () => {
  it('says what a no-records entry is: offsets a commit passed that hold no record', () => {
    const markup = auditTable([entry('no-records', { partition: 0, from: '13', to: '14', offset: '12' })]).toString();
    expect(markup).toContain('offsets 13..14 hold no record (transaction markers)');
  });

  it('keeps the details of a replayed entry as they were', () => {
    const markup = auditTable([entry('replayed', { errorClass: 'HTTPError', originalTopic: 'orders', replayCount: 0 })]).toString();
    expect(markup).toContain('error HTTPError, from orders, replay count before 0');
  });
});

describe("the console's audit log page", () => {
  it("leaves out the floor a step records per partition (bookkeeping), so an operator's replay or discard is the newest line", () => {
    const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
    const markup = auditPage(consumer, [entry('handled-below', { partition: 0, belowOffset: '13', expiredTotal: '0' }), entry('discarded', { reason: 'superseded' })], 200).toString();
    expect(markup).toContain('<td>discarded</td>');
    expect(markup).not.toContain('<td>handled-below</td>');
  });
});
