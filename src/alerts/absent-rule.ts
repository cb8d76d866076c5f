import type { AlertPolicy } from '../model/parts';
import type { Criticality } from '../spec/vocabulary';
import { alertBasics, environment, MINUTE, minutes } from './context';
import type { AlertContext } from './context';
import { selector } from './promql';
import type { AlertRule } from './rule';

/**
 * Every alert's twin for its own blindness (kubernetes-mixin's absent alerts): the
 * series a process always exports while it runs is missing. With environment labels,
 * also an environment whose series was there in the last hour and is gone now, which a
 * bare `absent()` misses while another environment still exports; and, past that hour,
 * an environment this alert already holds (its own `ALERTS` series, pending or firing)
 * whose series has not come back. Without that hold the alert resolved an hour after
 * the series went, while the environment was still blind.
 */
function absentExpr(ctx: AlertContext<string>, alert: string, labels: Readonly<Record<string, string>>, scraped: readonly string[], expectedWith?: string): string {
  const env = environment(ctx);
  const [series] = scraped as [string, ...string[]];
  // `or on()`: one element at most, whichever series is missing (the rule's labels would make several collide).
  const absent = scraped.map((s) => `absent(${s})`).join(' or on() ');
  if (env.labels.length === 0) return absent;
  const held = selector('ALERTS', { alertname: alert, ...labels }).replace(/}$/, `${env.labels.map((l) => `,${l}!=""`).join('')}}`);
  const expected = expectedWith ? ` or group${env.by}(${expectedWith})` : '';
  const gone = `group${env.by}(last_over_time(${series}[1h])) or group${env.by}(${held})${expected}`;
  const present = scraped.map((s) => `group${env.by}(${s})`).join(' and ');
  return `((${gone}) unless ${scraped.length > 1 ? `(${present})` : present}) or on() ${scraped.length > 1 ? `(${absent})` : absent}`;
}

/** How long a process's series may be missing, per criticality: the same for the service and the monitor. */
export const ABSENCE_PRESETS: Readonly<Record<Criticality, AlertPolicy>> = {
  money: { threshold: 0, forMs: 5 * MINUTE, severity: 'critical' },
  standard: { threshold: 0, forMs: 10 * MINUTE, severity: 'warning' },
  analytics: { threshold: 0, forMs: 15 * MINUTE, severity: 'warning' },
};

/**
 * The alert that fires while the series `scraped` of the consumer and `topic` is missing;
 * with environment labels, also in an environment where `expectedWith` exists (the
 * services' series, for the monitor: a cluster whose services run needs its DLQ watched,
 * even when no monitor there ever exported).
 */
export function absentRule<K extends 'consumerDown' | 'monitorDown'>(
  ctx: AlertContext<K>,
  key: K,
  topic: string,
  scraped: string,
  text: { summary: string; description: string },
  more: {
    /** Series of the environments that need `scraped` (see above). */
    readonly expectedWith?: string;
    /** Other series the process always exports, each missing on its own fires the alert too. */
    readonly alsoScraped?: readonly string[];
  } = {},
): AlertRule {
  const basics = alertBasics(ctx, key, { topic });
  const forMinutes = minutes(basics.policy.forMs);
  // Prometheus still sees a series for 5 minutes (its lookback) after its last sample.
  const evalTime = `${16 + forMinutes}m`;
  const all = [selector(scraped, { consumer: ctx.consumer.name, topic }), ...(more.alsoScraped ?? [])];
  return {
    ...basics,
    expr: absentExpr(ctx, basics.alert, { consumer: ctx.consumer.name, topic }, all, more.expectedWith),
    forMs: basics.policy.forMs,
    summary: text.summary,
    description: () => text.description,
    valueFormat: 'humanize',
    firing: {
      name: `metrics that stop after 10 minutes fire ${basics.alert}`,
      interval: '1m',
      series: all.map((series) => ({ series, values: `0x10 _x${10 + forMinutes}` })),
      evalTime,
      value: 1,
    },
    quiet: {
      name: `metrics scraped all along keep ${basics.alert} quiet`,
      interval: '1m',
      series: all.map((series) => ({ series, values: `0x${20 + forMinutes}` })),
      evalTime,
    },
  };
}
