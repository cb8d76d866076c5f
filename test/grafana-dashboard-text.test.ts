import { topologyDashboard } from '../src/emitters/grafana';
import { dashboardText } from '../src/emitters/grafana/dashboard-text';
import type { TopologyModel } from '../src/model/types';
import { aConsumer, aTopology, compile } from './helpers/specs';

/** What the file held when the whole dashboard was built first and then serialized. */
const wholeDashboardText = (topology: TopologyModel, environmentLabels: readonly string[]) =>
  `${JSON.stringify(topologyDashboard({ topology, environmentLabels }), null, 2)}\n`;

function topologyOf(consumers: number): TopologyModel {
  const specs = Array.from({ length: consumers }, (_, i) =>
    aConsumer({
      name: `consumer-${i}`,
      topic: { name: `orders-${i}`, partitions: 3 },
      ...(i % 3 === 2 ? { ordering: 'in-place-only', ladder: undefined } : { ladder: ['10s', '1m', '10m'].slice(0, 1 + (i % 3)) }),
    }),
  );
  return compile(aTopology({ consumers: specs })).model!.topologies[0]!;
}

describe("the dashboard's file text, serialized a consumer at a time", () => {
  it.each([1, 2, 7])('is byte for byte the whole dashboard serialized at once, for %i consumers', (consumers) => {
    const topology = topologyOf(consumers);
    expect(dashboardText({ topology, environmentLabels: [] })).toBe(wholeDashboardText(topology, []));
  });

  it('is byte for byte the whole dashboard with environment variables, whose queries hold `$` patterns', () => {
    const topology = topologyOf(3);
    const text = dashboardText({ topology, environmentLabels: ['cluster', 'namespace'] });
    expect(text).toContain('$cluster');
    expect(text).toBe(wholeDashboardText(topology, ['cluster', 'namespace']));
  });

  it('leaves no trace of the mark that stood for the panels', () => {
    expect(dashboardText({ topology: topologyOf(2), environmentLabels: [] })).not.toContain('krt-panels');
  });
});
