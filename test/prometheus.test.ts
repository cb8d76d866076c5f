import { parse } from 'yaml';
import { emitPrometheus } from '../src/emitters/prometheus';
import { humanize, humanizeDuration, humanizePercentage } from '../src/emitters/prometheus/humanize';
import { expectGolden } from './helpers/golden';
import { aConsumer, aTopology, compile } from './helpers/specs';

function rulesOf(spec: unknown) {
  const files = emitPrometheus(compile(spec).model!);
  const rules = parse(files.find((f) => f.path.endsWith('.rules.yml'))!.content).groups.flatMap((g: { rules: unknown[] }) => g.rules);
  return rules as { alert: string; expr: string; for?: string; labels: Record<string, string>; annotations: Record<string, string> }[];
}
const find = (rules: ReturnType<typeof rulesOf>, alert: string) => rules.filter((r) => r.alert === alert);

describe('Prometheus alert rules', () => {
  const money = rulesOf(aTopology({ consumers: [aConsumer({ criticality: 'money' })] }));
  const analytics = rulesOf(aTopology({ consumers: [aConsumer({ criticality: 'analytics' })] }));

  it('pages on a single DLQ record for money events', () => {
    const [rule] = find(money, 'KafkaDlqNewMessages');
    expect(rule!.expr).toMatch(/^round\(sum\(increase\(kafka_dlq_routed_total\{consumer="billing-order-confirmed"\}\[10m\]\)\)\) >= 1 or on\(\) /);
    expect(rule!.labels.severity).toBe('critical');
  });

  it('waits for about a thousand DLQ records for analytics, as a warning', () => {
    const [rule] = find(analytics, 'KafkaDlqNewMessages');
    expect(rule!.expr).toMatch(/>= 1000 or on\(\) .* >= 1000\)$/);
    expect(rule!.labels.severity).toBe('warning');
  });

  it('labels every alert with severity, team and consumer, and links its runbook section', () => {
    for (const rule of money) {
      expect(rule.labels).toMatchObject({ team: 'billing', consumer: 'billing-order-confirmed' });
      expect(['critical', 'warning']).toContain(rule.labels.severity);
      expect(rule.annotations.runbook_url).toBe(`https://runbooks.example.com/kafka/billing-order-confirmed.md#${rule.alert.toLowerCase()}`);
      // An absent() alert has no value worth showing.
      if (!rule.expr.includes('absent(')) expect(rule.annotations.description).toContain('{{ $value');
    }
  });

  it('fires the oldest-record alert well before retention deletes the record', () => {
    const [rule] = find(money, 'KafkaDlqOldestMessageAge');
    // money: a quarter of the 28-day retention.
    expect(rule!.expr).toMatch(/> 604800$/);
  });

  it('watches every tier for an overdue head record on any partition, in multiples of its own delay', () => {
    const stuck = find(money, 'KafkaRetryTierStuck');
    expect(stuck.map((r) => r.labels.tier)).toEqual(['1m', '10m', '1h']);
    expect(stuck.find((r) => r.labels.tier === '1h')!.expr).toBe(
      'max(last_over_time(kafka_retry_tier_overdue_seconds{consumer="billing-order-confirmed",topic="orders.confirmed.retry.1h"}[5m])) > 10800',
    );
  });

  it('has a consumer-down and a monitor-down alert for every consumer, and one for main-consumer lag and expired DLQ records', () => {
    expect(find(money, 'KafkaRetryConsumerDown')[0]!.expr).toBe('absent(kafka_retry_messages_total{consumer="billing-order-confirmed",topic="orders.confirmed"})');
    expect(find(money, 'KafkaRetryMonitorDown')[0]!.expr).toBe(
      [
        'absent(kafka_dlq_size{consumer="billing-order-confirmed",topic="orders.confirmed.dlq"})',
        ...['1m', '10m', '1h'].map((tier) => `absent(kafka_retry_tier_overdue_seconds{consumer="billing-order-confirmed",topic="orders.confirmed.retry.${tier}"})`),
      ].join(' or on() '),
    );
    expect(find(money, 'KafkaRetryMainConsumerLag')[0]!.expr).toMatch(/kafka_retry_main_lag_seconds\{consumer="billing-order-confirmed",topic="orders.confirmed"\}\[5m\]\)\) > 300$/);
    expect(find(money, 'KafkaDlqRecordsExpired')[0]!.expr).toBe(
      'round(max(kafka_dlq_expired_total{consumer="billing-order-confirmed",topic="orders.confirmed.dlq"}) - min_over_time((max(kafka_dlq_expired_total{consumer="billing-order-confirmed",topic="orders.confirmed.dlq"}))[1h:1m])) >= 1',
    );
  });

  it('keeps the environment labels the spec names in every aggregation', () => {
    const rules = rulesOf(aTopology({ alerts: { environmentLabels: ['cluster', 'namespace'] }, consumers: [aConsumer()] }));
    for (const rule of rules) {
      const aggregations = rule.expr.match(/\b(sum|max|min|group)\b(?! by \(cluster, namespace\))/g) ?? [];
      expect({ alert: rule.alert, aggregations }).toEqual({ alert: rule.alert, aggregations: [] });
    }
  });

  it('rejects an environment label the alerts set themselves', () => {
    expect(compile(aTopology({ alerts: { environmentLabels: ['consumer'] } })).model).toBeUndefined();
  });

  it('generates Alertmanager inhibit rules: a stopped consumer explains its stuck tiers and its lag', () => {
    const files = emitPrometheus(compile(aTopology({ alerts: { environmentLabels: ['cluster'] } })).model!);
    const inhibit = parse(files.find((f) => f.path === 'alertmanager/orders.inhibit.yml')!.content).inhibit_rules;
    expect(inhibit).toContainEqual({
      source_matchers: ['alertname="KafkaRetryConsumerDown"', 'consumer="billing-order-confirmed"'],
      target_matchers: ['alertname=~"KafkaRetryTierStuck|KafkaRetryMainConsumerLag"', 'consumer="billing-order-confirmed"'],
      equal: ['consumer', 'cluster'],
    });
  });

  it('applies per-alert overrides over the criticality preset', () => {
    const rules = rulesOf(aTopology({ consumers: [aConsumer({ criticality: 'money', alerts: { dlqBacklog: { threshold: 25, for: '2h', severity: 'warning' } } })] }));
    const [rule] = find(rules, 'KafkaDlqBacklog');
    expect(rule!.expr).toMatch(/>= 25$/);
    expect(rule!.for).toBe('2h');
    expect(rule!.labels.severity).toBe('warning');
  });

  it('keeps an analytics DLQ with a few hundred records quiet in its generated test', () => {
    const files = emitPrometheus(compile(aTopology({ consumers: [aConsumer({ criticality: 'analytics' })] })).model!);
    const tests = parse(files.find((f) => f.path.endsWith('.test.yml'))!.content).tests;
    const quiet = tests.find((t: any) => t.alert_rule_test[0].alertname === 'KafkaDlqNewMessages' && t.alert_rule_test[0].exp_alerts.length === 0);
    expect(quiet.input_series[0].values).toBe('0+99.9x40');
  });

  it('matches the golden rules and tests of a Spring-named standard consumer', () => {
    const files = emitPrometheus(compile(aTopology({ naming: 'spring', consumers: [aConsumer({ ladder: ['5s', '1m'] })] })).model!);
    for (const file of files) expectGolden(file.path, file.content);
  });
});

describe('the port of Prometheus template functions used for expected annotations', () => {
  it.each([
    [0, '0'],
    [1, '1'],
    [999, '999'],
    [1000, '1k'],
    [1234, '1.234k'],
    [0.25, '250m'],
  ])('humanizes %p as %p', (value, text) => {
    expect(humanize(value)).toBe(text);
  });

  it.each([
    [0, '0s'],
    [5, '5s'],
    [90, '1m 30s'],
    [358.5, '5m 58s'],
    [3600, '1h 0m 0s'],
    [605400, '7d 0h 10m 0s'],
  ])('humanizes %p seconds as %p', (value, text) => {
    expect(humanizeDuration(value)).toBe(text);
  });

  it('renders shares as percentages with four significant digits', () => {
    expect(humanizePercentage(0.1)).toBe('10%');
    expect(humanizePercentage(0.2 + 1e-12)).toBe('20%');
    expect(humanizePercentage(0.12345)).toBe('12.35%');
  });
});
