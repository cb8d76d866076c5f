import { formatDuration } from '../duration';
import { alertName, runbookAnchor, runbookUrl } from '../naming';
import type { AlertPolicy, ConsumerParts, TopologyParts } from '../model/parts';

/** Presets and rules state durations in milliseconds; most of them are whole minutes. */
export const MINUTE = 60_000;

/**
 * A consumer as an alert module reads it: the model's parts, and the policies of the
 * alerts it names (`R`: its own key, and any other alert's it reads).
 */
export type AlertedConsumer<R extends string> = ConsumerParts & { readonly alerts: Readonly<Record<R, AlertPolicy>> };

/** What an alert's rules are made of: its consumer (with the policies `R` it reads) and topology. */
export interface AlertContext<R extends string> {
  readonly consumer: AlertedConsumer<R>;
  readonly topology: TopologyParts;
}

/**
 * Another alert that this one's text mentions, by a key its consumer's type says it reads,
 * so everyAlert checks that key is an alert's: its name and its runbook anchor.
 */
export function mentioned<R extends string>(_consumer: AlertedConsumer<R>, key: R): { readonly name: string; readonly anchor: string } {
  return { name: alertName(key), anchor: runbookAnchor(key) };
}

/** The parts every alert of a consumer shares: name, policy, labels, runbook link. */
export function alertBasics<K extends string>(ctx: AlertContext<K>, key: K, extraLabels: Readonly<Record<string, string>> = {}) {
  const policy: AlertPolicy = ctx.consumer.alerts[key];
  return {
    key,
    alert: alertName(key),
    policy,
    labels: { severity: policy.severity, team: ctx.topology.owner.team, consumer: ctx.consumer.name, ...extraLabels },
    runbookUrl: runbookUrl(ctx.topology.runbookBaseUrl, ctx.consumer.name, key),
  };
}

/**
 * The grouping clauses that keep the topology's environment labels (point: a Prometheus
 * that scrapes staging and prod must not merge them): `by (cluster)` for aggregations,
 * `on(cluster)` for binary operators; empty lists without environment labels.
 */
export function environment(ctx: AlertContext<string>) {
  const labels = ctx.topology.environmentLabels.join(', ');
  return { by: labels ? ` by (${labels})` : '', on: `on(${labels})`, labels: ctx.topology.environmentLabels };
}

/** Whole minutes of a duration, at least the given floor: test series run in minutes. */
export function minutes(ms: number): number {
  return Math.ceil(ms / 60_000);
}

/** `1 record`, `2 records`: for test names people read in promtool's output. */
export function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}

/**
 * How long a gauge from a restarting monitor may be missing before its alert resets:
 * rules read gauges through `max_over_time` over this window, so a pod restart (a gap
 * of a few scrapes) does not restart a long `for:`.
 */
export const GAP_WINDOW = '5m';

/** `12.5%`: a share as people read it, to a tenth of a percent. */
export function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}

/** How long a condition must hold, as a runbook says it: `at once` or `for 10m`. */
export function describeDuration(ms: number): string {
  return ms === 0 ? 'at once' : `for ${formatDuration(ms)}`;
}
