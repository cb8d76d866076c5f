import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Dashboard, Panel, RowPanel } from '@grafana/grafana-foundation-sdk/dashboard';
import { emitGrafana, topologyDashboard } from '../src/emitters/grafana';
import { expectGolden } from './helpers/golden';
import { panelQueries } from './helpers/grafana-queries';
import { headingAnchors } from './helpers/markdown';
import { REPO_ROOT } from './helpers/project';
import { aConsumer, aTopology, compile } from './helpers/specs';

const ENVIRONMENT = ['cluster', 'namespace'];

/** A topology of two consumers: a money one with three tiers and an in-place-only one without tiers. */
function twoConsumers(environmentLabels: readonly string[] = ENVIRONMENT): Dashboard {
  const model = compile(
    aTopology({
      consumers: [
        aConsumer({ criticality: 'money', dlq: { retention: '14d' }, alerts: { retryRateSpike: { threshold: 0.2 } } }),
        aConsumer({ name: 'audit-order-confirmed', topic: { name: 'orders.audited', partitions: 3 }, ordering: 'in-place-only', ladder: undefined }),
      ],
    }),
  ).model!;
  return topologyDashboard({ topology: model.topologies[0]!, environmentLabels });
}

const rows = (d: Dashboard) => (d.panels ?? []).filter((p): p is RowPanel => p.type === 'row');
/** The panels under each row, by row title. */
function panelsByRow(d: Dashboard): Map<string, Panel[]> {
  const byRow = new Map<string, Panel[]>();
  let current = '';
  for (const p of d.panels ?? []) {
    if (p.type === 'row') byRow.set((current = p.title!), []);
    else byRow.get(current)!.push(p as Panel);
  }
  return byRow;
}
const thresholdValues = (p: Panel) => (p.fieldConfig?.defaults.thresholds?.steps ?? []).map((s) => s.value).filter((v) => v !== null);
const exprs = (p: Panel) => (p.targets ?? []).map((t) => (t as unknown as { expr: string }).expr);

describe('the Grafana dashboard of a topology', () => {
  const dashboard = twoConsumers();
  const byRow = panelsByRow(dashboard);
  const money = byRow.get('billing-order-confirmed (orders.confirmed)')!;
  const auditing = byRow.get('audit-order-confirmed (orders.audited)')!;
  const panel = (panels: Panel[], title: string) => panels.find((p) => p.title === title)!;

  it('has one row per consumer, in the order of the spec, titled with the consumer and its topic', () => {
    expect(rows(dashboard).map((r) => r.title)).toEqual(['billing-order-confirmed (orders.confirmed)', 'audit-order-confirmed (orders.audited)']);
  });

  it('has one lag panel per tier, with the tier’s delay as its threshold', () => {
    const tierPanels = money.filter((p) => p.title!.startsWith('Tier '));
    expect(tierPanels.map((p) => [p.title, thresholdValues(p)])).toEqual([
      ['Tier 1m: overdue time and waiting records', [60]],
      ['Tier 10m: overdue time and waiting records', [600]],
      ['Tier 1h: overdue time and waiting records', [3600]],
    ]);
    expect(exprs(tierPanels[1]!).join('\n')).toContain('topic="orders.confirmed.retry.10m"');
  });

  it('shows no tier panels and no lateness for a consumer without tiers', () => {
    expect(auditing.map((p) => p.title)).toEqual([
      'Records per second',
      'Share of records sent to retry',
      'Routed by error class',
      'DLQ: unhandled records',
      'DLQ: age of the oldest unhandled record',
      'DLQ: records expired unhandled',
      'Main consumer lag',
      'Failed publishes to retry and DLQ',
    ]);
  });

  it('draws the retry share against the KafkaRetryRateSpike threshold of the spec', () => {
    expect(thresholdValues(panel(money, 'Share of records sent to retry'))).toEqual([0.2]);
  });

  it('draws the oldest DLQ record’s age against the alert (a quarter of retention for money) and the retention itself', () => {
    expect(thresholdValues(panel(money, 'DLQ: age of the oldest unhandled record'))).toEqual([14 * 86400 / 4, 14 * 86400]);
  });

  it('draws the DLQ size against the KafkaDlqBacklog threshold: one record for money', () => {
    expect(thresholdValues(panel(money, 'DLQ: unhandled records'))).toEqual([1]);
  });

  it('filters every query on its own consumer and on every environment variable', () => {
    for (const [row, panels] of byRow) {
      const consumer = row.split(' ')[0];
      for (const expr of panels.flatMap(exprs)) {
        for (const selector of expr.match(/\{[^}]*\}/g)!) {
          expect(selector).toContain(`consumer="${consumer}"`);
          expect(selector).toContain('cluster="$cluster",namespace="$namespace"');
        }
      }
    }
  });

  it('keeps the environment labels in every aggregation, as the alert rules do', () => {
    const aggregations = [...dashboard.panels!].flatMap((p) => exprs(p as Panel)).flatMap((e) => e.match(/\b(sum|max)\b( by \([^)]*\))?/g)!);
    expect(aggregations.length).toBeGreaterThan(20);
    for (const aggregation of aggregations) expect(aggregation).toMatch(/^(sum|max) by \(cluster, namespace\b/);
  });

  it('offers a Prometheus datasource variable, then one variable per environment label, each narrowed by the ones before', () => {
    const variables = dashboard.templating.list!;
    expect(variables.map((v) => [v.name, v.type])).toEqual([['datasource', 'datasource'], ['cluster', 'query'], ['namespace', 'query']]);
    expect(variables[2]!.query).toBe('label_values(kafka_retry_messages_total{consumer=~"billing-order-confirmed|audit-order-confirmed",cluster="$cluster"}, namespace)');
    for (const p of money) expect(p.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
  });

  it('has no environment variables and plain aggregations when the spec names no environment labels', () => {
    const plain = twoConsumers([]);
    expect(plain.templating.list!.map((v) => v.name)).toEqual(['datasource']);
    expect(exprs(panelsByRow(plain).get('billing-order-confirmed (orders.confirmed)')![0]!)[0]).toBe(
      'sum(rate(kafka_retry_messages_total{consumer="billing-order-confirmed",outcome="success"}[$__rate_interval]))',
    );
  });

  it('marks each consumer’s firing alerts on that consumer’s panels only', () => {
    const annotations = dashboard.annotations.list!;
    expect(annotations.map((a) => a.expr)).toEqual([
      'ALERTS{consumer="billing-order-confirmed",alertstate="firing",cluster="$cluster",namespace="$namespace"}',
      'ALERTS{consumer="audit-order-confirmed",alertstate="firing",cluster="$cluster",namespace="$namespace"}',
    ]);
    expect(annotations[0]!.filter!.ids).toEqual(money.map((p) => p.id));
    expect(annotations[1]!.filter!.ids).toEqual(auditing.map((p) => p.id));
  });

  it('gives every panel and row a distinct id', () => {
    const ids = dashboard.panels!.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('says it is generated, in its description and a tag', () => {
    expect(dashboard.description).toContain('generated by krt — do not edit');
    expect(dashboard.tags).toContain('generated-by-krt');
    expect(dashboard.editable).toBe(false);
  });

  it('lists every panel query with its variables resolved, for the end-to-end test', () => {
    const queries = panelQueries(dashboard, { cluster: 'eu-1', namespace: 'billing' });
    expect(queries).toHaveLength(money.concat(auditing).flatMap(exprs).length);
    expect(queries[0]).toEqual({
      source: 'Records per second / A',
      expr: 'sum by (cluster, namespace) (rate(kafka_retry_messages_total{consumer="billing-order-confirmed",outcome="success",cluster="eu-1",namespace="billing"}[1m]))',
    });
    expect(() => panelQueries(dashboard)).toThrow(/uses \$cluster, which has no value/);
  });

  it('is the same, byte for byte, every time it is generated', () => {
    const model = compile(aTopology()).model!;
    expect(emitGrafana(model)).toEqual(emitGrafana(model));
  });

  it('matches the golden dashboard of two consumers with environment labels', () => {
    expectGolden('grafana/two-consumers-with-environment-labels.json', `${JSON.stringify(dashboard, null, 2)}\n`);
  });
});

describe('the generated dashboards in generated/grafana', () => {
  const dir = path.join(REPO_ROOT, 'generated', 'grafana');
  const files = readdirSync(dir).sort();
  const runbooks = path.join(REPO_ROOT, 'generated', 'runbooks');

  it('have every panel described in docs/dashboards.md', () => {
    const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'dashboards.md'), 'utf8');
    const titles = files.flatMap((file) => (JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Dashboard).panels!.filter((p) => p.type !== 'row').map((p) => p.title!));
    const undocumented = [...new Set(titles.map((t) => t.replace(/^Tier \S+:/, 'Tier `<delay>`:')))].filter((t) => !docs.includes(`| ${t}`));
    expect(undocumented).toEqual([]);
  });

  it('exist for each example topology', () => {
    expect(files).toEqual(['analytics.json', 'orders.json']);
  });

  it.each(files)('%s links only to runbook pages and headings that exist in generated/runbooks', (file) => {
    const dashboard = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Dashboard;
    const urls = [...(dashboard.links ?? []), ...dashboard.panels!.flatMap((p) => (p as Panel).links ?? [])].map((l) => l.url!);
    expect(urls.length).toBeGreaterThan(dashboard.panels!.length / 2);
    const broken = urls.filter((url) => {
      const [page, anchor] = url.split('/').pop()!.split('#') as [string, string | undefined];
      const markdown = (() => { try { return readFileSync(path.join(runbooks, page), 'utf8'); } catch { return undefined; } })();
      return markdown === undefined || (anchor !== undefined && !headingAnchors(markdown).has(anchor));
    });
    expect(broken).toEqual([]);
    expect(urls).toContain(`${urls[0]!.replace(/\.md.*$/, '.md')}#inspect-the-dlq`);
  });
});
