import { aclRules } from '../src/model/acls';
import { aConsumer, aTopology, compile } from './helpers/specs';

const topology = compile(aTopology()).model!.topologies[0]!;
const rules = aclRules(topology);
const grantsOf = (principal: string) =>
  rules.filter((r) => r.principal === principal).map((r) => `${r.operation} ${r.resourceType} ${r.resourceName}`).sort();

describe('least-privilege ACLs (R6)', () => {
  it('lets the consumer read its main topic and tiers, write its tiers and DLQ, and use its two groups', () => {
    expect(grantsOf('User:billing')).toEqual([
      'Read Group billing-order-confirmed',
      'Read Group billing-order-confirmed.retry',
      'Read Topic orders.confirmed',
      'Read Topic orders.confirmed.retry.10m',
      'Read Topic orders.confirmed.retry.1h',
      'Read Topic orders.confirmed.retry.1m',
      'Write Topic orders.confirmed.dlq',
      'Write Topic orders.confirmed.retry.10m',
      'Write Topic orders.confirmed.retry.1h',
      'Write Topic orders.confirmed.retry.1m',
    ]);
  });

  it('gives a park-by-key consumer one group for the main topic and the tiers, and the monitor Describe on it', () => {
    const parkByKey = aclRules(compile(aTopology({ consumers: [aConsumer({ ordering: 'park-by-key' })] })).model!.topologies[0]!);
    const grants = (principal: string) => parkByKey.filter((r) => r.principal === principal && r.resourceType === 'Group').map((r) => `${r.operation} ${r.resourceName}`);
    expect(grants('User:billing')).toEqual(['Read billing-order-confirmed']);
    expect(grants('User:orders-monitor')).toContain('Describe billing-order-confirmed');
  });

  it('lets the replay tool read the DLQ in its reader group and the audit log (krt console shows it), write the first tier, the main topic and the audit log, and commit in its own group, nothing else', () => {
    expect(grantsOf('User:orders-replay')).toEqual([
      'Read Group billing-order-confirmed.dlq-replay',
      'Read Group billing-order-confirmed.dlq-replay-reader',
      'Read Topic orders.confirmed.dlq',
      'Read Topic orders.confirmed.dlq.audit',
      'Write Topic orders.confirmed',
      'Write Topic orders.confirmed.dlq.audit',
      'Write Topic orders.confirmed.retry.1m',
    ]);
  });

  it('lets the replay tool of a park-by-key consumer describe the main group, for its parked keys, and of a consumer without tiers write no tier', () => {
    const replayGroups = (consumer: ReturnType<typeof aConsumer>) =>
      aclRules(compile(aTopology({ consumers: [consumer] })).model!.topologies[0]!)
        .filter((r) => r.role === 'replay')
        .map((r) => `${r.operation} ${r.resourceType} ${r.resourceName}`);
    expect(replayGroups(aConsumer({ ordering: 'park-by-key' }))).toContain('Describe Group billing-order-confirmed');
    expect(replayGroups(aConsumer({ ordering: 'in-place-only', ladder: undefined })).filter((g) => g.includes('.retry.'))).toEqual([]);
  });

  it('lets the monitor read and describe, never write', () => {
    const monitor = rules.filter((r) => r.principal === 'User:orders-monitor');
    expect(monitor.map((r) => r.operation)).not.toContain('Write');
    expect(grantsOf('User:orders-monitor')).toEqual([
      'Describe Group billing-order-confirmed',
      'Describe Group billing-order-confirmed.dlq-replay',
      'Describe Group billing-order-confirmed.retry',
      'Read Group billing-order-confirmed.dlq-monitor',
      'Read Group billing-order-confirmed.dlq-replay-reader',
      'Read Topic orders.confirmed',
      'Read Topic orders.confirmed.dlq',
      'Read Topic orders.confirmed.dlq.audit',
      'Read Topic orders.confirmed.retry.10m',
      'Read Topic orders.confirmed.retry.1h',
      'Read Topic orders.confirmed.retry.1m',
    ]);
  });

  it('never lets the consumer write its main topic or read its own DLQ', () => {
    expect(grantsOf('User:billing')).not.toContain('Write Topic orders.confirmed');
    expect(grantsOf('User:billing')).not.toContain('Read Topic orders.confirmed.dlq');
  });

  it('says why each ACL exists', () => {
    for (const rule of rules) expect(rule.reason.length).toBeGreaterThan(10);
  });

  it('uses the principals the spec names instead of the defaults', () => {
    const custom = compile(aTopology({ principals: { replay: 'User:sre', monitor: 'User:prometheus' }, consumers: [aConsumer()] })).model!;
    const principals = new Set(aclRules(custom.topologies[0]!).map((r) => r.principal));
    expect([...principals].sort()).toEqual(['User:billing', 'User:orders-drift', 'User:prometheus', 'User:sre']);
  });
});
