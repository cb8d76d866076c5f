import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { topologyDashboard } from '../src/emitters/grafana';
import { annotationQueries, panelQueries, variableSelectors } from './helpers/grafana-queries';
import type { DashboardQuery } from './helpers/grafana-queries';
import { REPO_ROOT } from './helpers/project';
import { aConsumer, aTopology, compile } from './helpers/specs';
import { promtool } from './helpers/tools';

jest.setTimeout(120_000);

const SAMPLE_ENVIRONMENT = { cluster: 'eu-west-1', namespace: 'billing' };

const generatedDir = path.join(REPO_ROOT, 'generated', 'grafana');
const generated = readdirSync(generatedDir)
  .sort()
  .map((file) => [file, JSON.parse(readFileSync(path.join(generatedDir, file), 'utf8')) as Dashboard] as const);

function withEnvironmentLabels(): Dashboard {
  const model = compile(aTopology({ consumers: [aConsumer(), aConsumer({ name: 'audit-order-confirmed', topic: { name: 'orders.audited', partitions: 3 }, ladder: undefined, ordering: 'in-place-only' })] })).model!;
  return topologyDashboard({ topology: model.topologies[0]!, environmentLabels: Object.keys(SAMPLE_ENVIRONMENT) });
}

function queriesOf(dashboard: Dashboard): DashboardQuery[] {
  return [...panelQueries(dashboard, SAMPLE_ENVIRONMENT), ...annotationQueries(dashboard, SAMPLE_ENVIRONMENT), ...variableSelectors(dashboard, SAMPLE_ENVIRONMENT)];
}

/**
 * Runs `promtool check rules` on the queries written as recording rules, the real
 * PromQL parser's verdict on each; returns its exit code and output.
 */
function promtoolCheck(queries: readonly DashboardQuery[]): { code: number; output: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-grafana-'));
  const file = path.join(dir, 'panel-queries.rules.yml');
  const rules = queries.map((q, i) => ({ record: `grafana_query_${i}`, expr: q.expr, labels: { source: q.source } }));
  writeFileSync(file, stringify({ groups: [{ name: 'grafana-panel-queries', rules }] }, { lineWidth: 0 }));
  try {
    return { code: 0, output: execFileSync(promtool(), ['check', 'rules', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { code: e.status, output: `${e.stdout}${e.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the dashboard queries, parsed by the real promtool', () => {
  it.each(generated)('every panel, annotation and variable query of generated/grafana/%s is valid PromQL', (_file, dashboard) => {
    const queries = queriesOf(dashboard);
    expect(queries.length).toBeGreaterThan(10);
    const result = promtoolCheck(queries);
    expect(result.output).toContain(`SUCCESS: ${queries.length} rules found`);
    expect(result.code).toBe(0);
  });

  it('every query with environment variables, and the selectors those variables read, resolved to sample values, are valid PromQL', () => {
    const queries = queriesOf(withEnvironmentLabels());
    expect(queries.filter((q) => q.source.startsWith('variable ')).map((q) => q.expr)).toEqual([
      'kafka_retry_messages_total{consumer=~"billing-order-confirmed|audit-order-confirmed"}',
      'kafka_retry_messages_total{consumer=~"billing-order-confirmed|audit-order-confirmed",cluster="eu-west-1"}',
    ]);
    expect(queries.some((q) => q.expr.includes('cluster="eu-west-1",namespace="billing"'))).toBe(true);
    const result = promtoolCheck(queries);
    expect(result.output).toContain(`SUCCESS: ${queries.length} rules found`);
    expect(result.code).toBe(0);
  });

  it('fails on a dashboard with one broken query, naming it', () => {
    const broken = structuredClone(generated.find(([file]) => file === 'orders.json')![1]);
    const lateness = broken.panels!.find((p) => p.title === 'Delivery lateness per tier') as unknown as { targets: { expr: string }[] };
    lateness.targets[1]!.expr = lateness.targets[1]!.expr.replace(/\)$/, '');
    const queries = queriesOf(broken);
    const index = queries.findIndex((q) => q.source === 'Delivery lateness per tier / B');
    const result = promtoolCheck(queries);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(`"grafana_query_${index}": could not parse expression`);
    expect(result.output).toContain('unclosed left parenthesis');
  });
});
