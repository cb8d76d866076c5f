import { METRICS } from '../../../naming';
import { selector } from '../promql';
import type { AlertRule } from '../rule';
import { alertBasics, environment, minutes } from './context';
import type { AlertContext } from './context';

/**
 * Every alert's twin for its own blindness (kubernetes-mixin's absent alerts): the
 * series a process always exports while it runs is missing. With environment labels,
 * also an environment whose series was there in the last hour and is gone now, which a
 * bare `absent()` misses while another environment still exports.
 */
function absentExpr(ctx: AlertContext, series: string): string {
  const env = environment(ctx);
  const gone = env.labels.length > 0 ? `(group${env.by}(last_over_time(${series}[1h])) unless group${env.by}(${series})) or on() ` : '';
  return `${gone}absent(${series})`;
}

function absentRule(ctx: AlertContext, key: 'consumerDown' | 'monitorDown', topic: string, scraped: string, text: { summary: string; description: string }): AlertRule {
  const basics = alertBasics(ctx, key, { topic });
  const forMinutes = minutes(basics.policy.forMs);
  // Prometheus still sees a series for 5 minutes (its lookback) after its last sample.
  const evalTime = `${16 + forMinutes}m`;
  return {
    ...basics,
    expr: absentExpr(ctx, selector(scraped, { consumer: ctx.consumer.name, topic })),
    forMs: basics.policy.forMs,
    summary: text.summary,
    description: () => text.description,
    valueFormat: 'humanize',
    firing: {
      name: `metrics that stop after 10 minutes fire ${basics.alert}`,
      interval: '1m',
      series: [{ series: selector(scraped, { consumer: ctx.consumer.name, topic }), values: `0x10 _x${10 + forMinutes}` }],
      evalTime,
      value: 1,
    },
    quiet: {
      name: `metrics scraped all along keep ${basics.alert} quiet`,
      interval: '1m',
      series: [{ series: selector(scraped, { consumer: ctx.consumer.name, topic }), values: `0x${20 + forMinutes}` }],
      evalTime,
    },
  };
}

/** No service of the consumer exports metrics: nothing consumes, and every service-side alert is blind. */
export function consumerDown(ctx: AlertContext): AlertRule[] {
  const { consumer } = ctx;
  return [
    absentRule(ctx, 'consumerDown', consumer.mainTopic.name, `${METRICS.messagesTotal}`, {
      summary: `No service of ${consumer.name} is running, or Prometheus does not scrape it`,
      description: `Prometheus has no ${METRICS.messagesTotal} of ${consumer.name} for ${consumer.mainTopic.name}: the service is down, or it is not scraped. Nothing consumes, and the alerts that read the service's metrics cannot fire.`,
    }),
  ];
}

/** No monitor exports the DLQ and tier gauges: the backlog, age and tier alerts are blind. */
export function monitorDown(ctx: AlertContext): AlertRule[] {
  const { consumer } = ctx;
  return [
    absentRule(ctx, 'monitorDown', consumer.dlq.name, METRICS.dlqSize, {
      summary: `The DLQ and tier monitor of ${consumer.name} is not running, or Prometheus does not scrape it`,
      description: `Prometheus has no ${METRICS.dlqSize} of ${consumer.name} for ${consumer.dlq.name}: \`krt monitor\` (or the service's in-process monitor) is down, cannot reach Kafka, or is not scraped. The DLQ backlog, oldest-record, expiry, tier and main-lag alerts cannot fire.`,
    }),
  ];
}
