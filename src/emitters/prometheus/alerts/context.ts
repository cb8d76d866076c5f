import { ALERTS, runbookUrl } from '../../../naming';
import type { AlertKey } from '../../../naming';
import type { AlertPolicy, ConsumerModel, TopologyModel } from '../../../model/types';

export interface AlertContext {
  readonly consumer: ConsumerModel;
  readonly topology: TopologyModel;
}

/** The parts every alert of a consumer shares: name, policy, labels, runbook link. */
export function alertBasics(ctx: AlertContext, key: AlertKey, extraLabels: Readonly<Record<string, string>> = {}) {
  const policy: AlertPolicy = ctx.consumer.alerts[key];
  return {
    key,
    alert: ALERTS[key],
    policy,
    labels: { severity: policy.severity, team: ctx.topology.owner.team, consumer: ctx.consumer.name, ...extraLabels },
    runbookUrl: runbookUrl(ctx.topology.runbookBaseUrl, ctx.consumer.name, key),
  };
}

/** Whole minutes of a duration, at least the given floor: test series run in minutes. */
export function minutes(ms: number): number {
  return Math.ceil(ms / 60_000);
}

/** `1 record`, `2 records`: for test names people read in promtool's output. */
export function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
