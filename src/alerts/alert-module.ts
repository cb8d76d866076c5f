import { ALERTS } from '../naming';
import type { AlertKey } from '../naming';
import type { AlertPolicy, ConsumerModel } from '../model/types';
import type { Criticality } from '../spec/types';
import type { AlertContext } from './context';
import type { AlertRule } from './rule';

/** What an alert watches; the rules file groups its rules by it, in this order. */
export const WATCHED = ['dlq', 'tiers', 'main topic', 'metrics'] as const;
export type Watched = (typeof WATCHED)[number];

/**
 * What an alert's runbook section states for one consumer. The page writes the
 * section's heading and its "Fires when" sentence; the alert's `runbookTemplate` writes
 * the rest, and reads any other field given here.
 */
export interface RunbookFacts {
  /** The sentence after "Fires when", from the same thresholds as the rule. */
  readonly condition: string;
  readonly [field: string]: unknown;
}

/** Everything an alert is, in one module; the naming module holds its user-visible name. */
export interface AlertParts<K extends AlertKey> {
  /** Its key in the spec's `alerts` overrides, and in the naming module's table of alert names. */
  readonly key: K;
  readonly watches: Watched;
  /** What its threshold counts, for the table of presets in the docs. */
  readonly thresholdUnit: string;
  /** Threshold, `for` and severity per criticality (R16); the spec can override each. */
  readonly presets: Readonly<Record<Criticality, AlertPolicy>>;
  /** Whether a consumer has this alert at all; every consumer has it when absent. */
  readonly appliesTo?: (consumer: ConsumerModel) => boolean;
  /** Its rules for one consumer, each with the promtool cases that fire it and keep it quiet. */
  readonly rules: (ctx: AlertContext) => AlertRule[];
  /** What its runbook section says for one consumer. */
  readonly runbook: (consumer: ConsumerModel) => RunbookFacts;
  /**
   * The rest of its runbook section, after the "Fires when" line: a Handlebars template of
   * the fields `runbook` gives and of the consumer's whole runbook page under `page`.
   * Strict: a field it names that the view lacks fails the synth.
   */
  readonly runbookTemplate: string;
  /**
   * The alerts whose firing this one explains, for the same consumer: Alertmanager holds
   * them back while it fires (one page per cause, never the cause and its symptoms).
   */
  readonly explains?: readonly AlertKey[];
}

export interface AlertModule<K extends AlertKey = AlertKey> extends AlertParts<K> {
  /** The alert's name, from the naming module. */
  readonly name: (typeof ALERTS)[K];
}

/** An alert module: its parts, named by the naming module. Leaving out a part does not compile. */
export function defineAlert<K extends AlertKey>(parts: AlertParts<K>): AlertModule<K> {
  return { ...parts, name: ALERTS[parts.key] };
}

/** Whether the consumer has the alert. */
export function appliesTo(alert: AlertModule, consumer: ConsumerModel): boolean {
  return alert.appliesTo?.(consumer) ?? true;
}

/** The keys of the naming module's alert table that none of the modules covers. */
export type Uncovered<M extends readonly AlertModule[]> = Exclude<AlertKey, M[number]['key']>;

/**
 * Takes a list of alert modules as it is, and compiles only while it has a module for
 * every alert the naming module names: the error shows the keys that have none.
 */
export function everyAlert<const M extends readonly AlertModule[]>(modules: M & ([Uncovered<M>] extends [never] ? unknown : { readonly modulesMissingFor: Uncovered<M> })): M {
  return modules;
}
