import { monitorPrincipalWarning } from '../src/cli/monitor-principals';
import { aConsumer, aTopology, compile } from './helpers/specs';

const topologies = compile(
  aTopology({ name: 'orders', consumers: [aConsumer({ name: 'billing' })] }),
  aTopology({ name: 'analytics', consumers: [aConsumer({ name: 'audit', topic: { name: 'orders.audited', partitions: 3 } })] }),
).model!.topologies;

describe('krt monitor started as one principal over several topologies', () => {
  it("names each topology whose monitor principal it is not, and the two ways out", () => {
    const warning = monitorPrincipalWarning(topologies, 'orders-monitor');
    expect(warning).toContain('analytics (User:analytics-monitor)');
    expect(warning).not.toContain('orders (User:orders-monitor)');
    expect(warning).toMatch(/krt monitor topologies\/<name>\.ts.*principals\.monitor/);
  });

  it('says nothing when it is the monitor principal of every topology it reads', () => {
    expect(monitorPrincipalWarning(topologies.filter((t) => t.name === 'orders'), 'orders-monitor')).toBeUndefined();
  });

  it('says nothing when no SASL user is set to compare', () => {
    expect(monitorPrincipalWarning(topologies, undefined)).toBeUndefined();
  });
});
