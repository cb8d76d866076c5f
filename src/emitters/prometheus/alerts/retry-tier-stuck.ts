import { alertThresholds } from '../../../model/alert-thresholds';
import { METRICS } from '../../../naming';
import type { RetryTierModel } from '../../../model/types';
import { promDuration, selector } from '../promql';
import type { AlertRule } from '../rule';
import { alertBasics, minutes } from './context';
import type { AlertContext } from './context';

/**
 * A tier whose records are overdue by `threshold` times its delay, in two ways, each its
 * own rule told apart by the `condition` label: `late` when the retry consumer runs
 * but late (lateness p99), `stalled` when it does not consume the tier while records wait. A tier that is merely busy but on time fires neither.
 */
export function retryTierStuck(ctx: AlertContext): AlertRule[] {
  return ctx.consumer.tiers.flatMap((tier) => [late(ctx, tier), stalled(ctx, tier)]);
}

function late(ctx: AlertContext, tier: RetryTierModel): AlertRule {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'retryTierStuck', { tier: tier.label, topic: tier.name, condition: 'late' });
  const factor = basics.policy.threshold;
  const overdueSeconds = alertThresholds.tierLateSeconds(consumer, tier);
  const bucket = (le: string) => selector(`${METRICS.deliveryLatenessSeconds}_bucket`, { consumer: consumer.name, tier: tier.label, le });
  const forMinutes = minutes(basics.policy.forMs);
  const length = 30 + forMinutes;
  // 60 deliveries a minute, all in the bucket (lower, upper]: histogram_quantile
  // interpolates inside it, so the p99 is lower + 0.99 * (upper - lower).
  const histogram = (lower: number, upper: number) => [
    { series: bucket(String(lower)), values: `0x${length}` },
    { series: bucket(String(upper)), values: `0+60x${length}` },
    { series: bucket('+Inf'), values: `0+60x${length}` },
  ];
  // A width whose 99% is not a whole number, so float noise cannot change the rendered seconds.
  const width = 150;
  return {
    ...basics,
    expr: `histogram_quantile(0.99, sum by (le) (rate(${selector(`${METRICS.deliveryLatenessSeconds}_bucket`, { consumer: consumer.name, tier: tier.label })}[10m]))) > ${overdueSeconds}`,
    forMs: basics.policy.forMs,
    summary: `Retry tier ${tier.label} of ${consumer.name} delivers records far too late`,
    description: (value) =>
      `99% of the records of tier ${tier.label} (${tier.name}) started ${value} or less after they were due; this alert fires past ${factor} times the tier's delay of ${tier.label}. The retry consumer is falling behind.`,
    valueFormat: 'humanizeDuration',
    firing: {
      name: `a p99 lateness past ${promDuration(overdueSeconds * 1000)} fires ${basics.alert} for tier ${tier.label}`,
      interval: '1m',
      series: histogram(overdueSeconds, overdueSeconds + width),
      evalTime: `${20 + forMinutes}m`,
      value: overdueSeconds + width * 0.99,
    },
    quiet: {
      name: `a busy tier ${tier.label} that delivers within ${promDuration(overdueSeconds * 1000)} keeps ${basics.alert} quiet`,
      interval: '1m',
      series: histogram(0, Math.floor(overdueSeconds / 2)),
      evalTime: `${20 + forMinutes}m`,
    },
  };
}

function stalled(ctx: AlertContext, tier: RetryTierModel): AlertRule {
  const { consumer } = ctx;
  const basics = alertBasics(ctx, 'retryTierStuck', { tier: tier.label, topic: tier.name, condition: 'stalled' });
  const factor = basics.policy.threshold;
  const stalledMs = alertThresholds.tierStalledMs(consumer, tier);
  const lag = selector(METRICS.retryTierLag, { consumer: consumer.name, topic: tier.name });
  const processed = selector(METRICS.messagesTotal, { consumer: consumer.name, topic: tier.name });
  const length = minutes(stalledMs) + 15;
  const evalTime = `${minutes(stalledMs) + 5}m`;
  return {
    ...basics,
    expr: `max(${lag}) > 0 unless on() sum(increase(${processed}[5m])) > 0`,
    forMs: stalledMs,
    summary: `Retry tier ${tier.label} of ${consumer.name} is not being consumed`,
    description: (value) =>
      `Records waiting in tier ${tier.label} (${tier.name}): ${value}; none was processed for ${promDuration(stalledMs)}, so they are overdue by at least ${factor} times the tier's delay. ${consumer.groups.retry === consumer.groups.main ? `The group ${consumer.groups.retry}, which reads the main topic and the tiers,` : `The retry group ${consumer.groups.retry}`} is stopped or stuck.`,
    valueFormat: 'humanize',
    firing: {
      name: `records waiting in tier ${tier.label} with no progress for ${promDuration(stalledMs)} fire ${basics.alert}`,
      interval: '1m',
      series: [
        { series: lag, values: `5x${length}` },
        { series: processed, values: `100x${length}` },
      ],
      evalTime,
      value: 5,
    },
    quiet: {
      name: `records waiting in tier ${tier.label} while the retry consumer makes progress keep ${basics.alert} quiet`,
      interval: '1m',
      series: [
        { series: lag, values: `5x${length}` },
        { series: processed, values: `100+1x${length}` },
      ],
      evalTime,
    },
  };
}
