import { alertThresholds } from '../../../model/alert-thresholds';
import { METRICS } from '../../../naming';
import type { RetryTierModel } from '../../../model/types';
import { promDuration, selector } from '../promql';
import type { AlertRule } from '../rule';
import { alertBasics, environment, GAP_WINDOW, minutes } from './context';
import type { AlertContext } from './context';

/**
 * A tier whose head record, on any partition, is overdue by `threshold` times the tier's
 * delay. The monitor's gauge carries the age in its value (now minus the head's due
 * time), so one stuck partition shows even while the others are busy, and a restart of
 * the monitor or the service does not reset the count. Whether the retry consumer is
 * stopped or merely slow, its records are late the same way.
 */
export function retryTierStuck(ctx: AlertContext): AlertRule[] {
  return ctx.consumer.tiers.map((tier) => overdue(ctx, tier));
}

function overdue(ctx: AlertContext, tier: RetryTierModel): AlertRule {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'retryTierStuck', { tier: tier.label, topic: tier.name });
  const factor = basics.policy.threshold;
  const limitSeconds = alertThresholds.tierOverdueSeconds(consumer, tier);
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
