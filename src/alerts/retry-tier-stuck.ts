import { formatDuration } from '../duration';
import { HEADERS, METRICS } from '../naming';
import type { RetryTierModel } from '../model/parts';
import type { AlertedConsumer } from './context';
import { defineAlert } from './alert-module';
import { alertBasics, describeDuration, environment, GAP_WINDOW, MINUTE, minutes } from './context';
import type { AlertContext } from './context';
import { promDuration, selector } from './promql';
import type { AlertRule } from './rule';

/** Seconds a tier partition's head record may be overdue before its tier counts as stuck. */
export const tierOverdueSeconds = (c: AlertedConsumer<'retryTierStuck'>, tier: RetryTierModel) => Math.round((c.alerts.retryTierStuck.threshold * tier.delayMs) / 1000);

/**
 * A tier whose head record, on any partition, is overdue by `threshold` times the tier's
 * delay. The monitor's gauge carries the age in its value (now minus the head's due
 * time), so one stuck partition shows even while the others are busy, and a restart of
 * the monitor or the service does not reset the count. Whether the retry consumer is
 * stopped or merely slow, its records are late the same way.
 */
function rules(ctx: AlertContext<'retryTierStuck'>): AlertRule[] {
  return ctx.consumer.tiers.map((tier) => overdue(ctx, tier));
}

function overdue(ctx: AlertContext<'retryTierStuck'>, tier: RetryTierModel): AlertRule {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'retryTierStuck', { tier: tier.label, topic: tier.name });
  const factor = basics.policy.threshold;
  const limitSeconds = tierOverdueSeconds(consumer, tier);
  const gauge = (partition: number) => selector(METRICS.retryTierOverdueSeconds, { consumer: consumer.name, topic: tier.name, partition: String(partition) });
  const forMinutes = minutes(basics.policy.forMs);
  const evalMinutes = 10 + forMinutes;
  // Partition 0 is busy and on time; partition 1's head is `overdueAtStart` seconds past
  // its due time at the test's start, and one more second each second.
  const series = (overdueAtStart: number) => [
    { series: gauge(0), values: `0x${evalMinutes + 5}` },
    { series: gauge(1), values: `${overdueAtStart}+60x${evalMinutes + 5}` },
  ];
  const evalSeconds = evalMinutes * 60;
  const group = consumer.groups.retry === consumer.groups.main ? `the group ${consumer.groups.retry}, which reads the main topic and the tiers,` : `the retry group ${consumer.groups.retry}`;
  return {
    ...basics,
    expr: `max${environment(ctx).by}(last_over_time(${selector(METRICS.retryTierOverdueSeconds, { consumer: consumer.name, topic: tier.name })}[${GAP_WINDOW}])) > ${limitSeconds}`,
    forMs: basics.policy.forMs,
    summary: `Retry tier ${tier.label} of ${consumer.name} delivers records far too late`,
    description: (value) =>
      `A record of tier ${tier.label} (${tier.name}) is ${value} past its due time; this alert fires past ${factor} times the tier's delay of ${tier.label}. Records wait behind it on its partition: ${group} is stopped, stuck or too slow.`,
    valueFormat: 'humanizeDuration',
    firing: {
      name: `one partition's head overdue past ${promDuration(limitSeconds * 1000)} fires ${basics.alert} for tier ${tier.label}, though another partition is on time`,
      interval: '1m',
      series: series(limitSeconds + 1),
      evalTime: `${evalMinutes}m`,
      value: limitSeconds + 1 + evalSeconds,
    },
    quiet: {
      name: `heads of tier ${tier.label} overdue by less than ${promDuration(limitSeconds * 1000)} keep ${basics.alert} quiet`,
      interval: '1m',
      series: series(limitSeconds - 60 - evalSeconds),
      evalTime: `${evalMinutes}m`,
    },
  };
}

/**
 * Its runbook section after the "Fires when" line (Handlebars): the fields `runbook` gives,
 * and the consumer's whole page under `page`.
 */
const RUNBOOK = `| tier | topic | fires when a head record is overdue by more than |
|---|---|---|
{{#each tiers}}
| {{label}} | \`{{name}}\` | {{overdueLimit}} |
{{/each}}

A tier that is merely busy is not stuck: its records wait until they are due, by design.
One stuck partition fires the alert even while the others are processed.

**What it means.** {{#if page.isParkByKey}}The consumer (group \`{{page.groups.retry}}\`, which reads the main topic and the tiers){{else}}The retry consumer (group \`{{page.groups.retry}}\`){{/if}} does not
consume the partition at all, or starts records long after their \`{{page.headers.dueAt}}\`.
Either way the records are safe in the tier for its retention ({{tierRetention}}), but
their retries, and so their processing, are late.

**Likely causes.**
- The {{#if page.isParkByKey}}consumer{{else}}retry consumer{{/if}} is down, crash-looping or stuck in rebalances (then [KafkaRetryConsumerDown](#kafkaretryconsumerdown) may fire too, and inhibits this alert).
- Its principal lost Read on the tier or on \`{{page.groups.retry}}\` (the logs show authorization errors).
- Too few instances for the partitions, a slow handler or a slow downstream.

**First checks.**
1. Lag per partition of every tier, and the members of \`{{page.groups.retry}}\`, as the monitor: \`{{page.commands.lag}}\`.
   No members means the {{#if page.isParkByKey}}consumer{{else}}retry consumer{{/if}} is not running; a partition whose \`committed\` offset does not move is the stuck one.
2. The head record of that partition and its \`{{page.headers.dueAt}}\`: \`{{page.commands.kcatTierHead}}\`,
   with the \`{{page.placeholders.partition}}\` and \`{{page.placeholders.committed}}\` offset that \`krt lag\` printed (this is the first tier; change the topic for others).
3. Which partitions are overdue: \`{{page.metrics.retryTierOverdueSeconds}}{consumer="{{page.name}}"} > 0\` in Prometheus; records waiting per tier: \`{{page.metrics.retryTierLag}}{consumer="{{page.name}}"}\`.
4. The service's logs for authorization errors or rebalances.

**Fix.** Restart or scale the {{#if page.isParkByKey}}consumer{{else}}retry consumer{{/if}}; restore the ACLs by deploying the generated
Terraform (\`cdktf deploy {{page.topology}}\`); fix the slow handler or downstream. The tier
drains by itself once the consumer runs: nothing needs to be replayed.
`;

export const retryTierStuck = defineAlert({
  key: 'retryTierStuck',
  watches: 'tiers',
  thresholdUnit: "times the tier's own delay overdue",
  docs: {
    meaning: 'per tier, the head record of some partition is overdue by more than N times the tier\'s delay, whether the retry consumer is stopped or slow',
    query: '`max(last_over_time(kafka_retry_tier_overdue_seconds[5m])) > N × delay`',
  },
  presets: {
    money: { threshold: 3, forMs: 5 * MINUTE, severity: 'critical' },
    standard: { threshold: 5, forMs: 10 * MINUTE, severity: 'warning' },
    analytics: { threshold: 10, forMs: 15 * MINUTE, severity: 'warning' },
  },
  appliesTo: (c) => c.tiers.length > 0,
  rules,
  runbook: (c) => ({
    // Wrapped as the lines of the section's template are.
    condition: [
      'the head record of any partition of a retry tier is overdue (now minus',
      `its \`${HEADERS.dueAt}\`, the monitor's \`${METRICS.retryTierOverdueSeconds}\`) by more than ${c.alerts.retryTierStuck.threshold} times`,
      `that tier's delay, ${describeDuration(c.alerts.retryTierStuck.forMs)}`,
    ].join('\n'),
    tiers: c.tiers.map((t) => ({ label: t.label, name: t.name, overdueLimit: formatDuration(tierOverdueSeconds(c, t) * 1000) })),
    tierRetention: [...new Set(c.tiers.map((t) => formatDuration(t.retentionMs)))].join(' or '),
  }),
  runbookTemplate: RUNBOOK,
});
