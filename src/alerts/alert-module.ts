import { alertName } from '../naming';
import type { AlertName } from '../naming';
import type { AlertPolicy } from '../model/parts';
import type { Criticality } from '../spec/vocabulary';
import type { AlertContext, AlertedConsumer } from './context';
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

/**
 * Everything an alert is, in one module: adding an alert is its module and its entry in
 * ALERT_MODULES (src/alerts/index.ts). `K` is its key; `R` the keys of the alerts it
 * mentions (its own, others' whose policies it reads, those it explains), each checked there to be an alert's.
 */
export interface AlertParts<K extends string, R extends string = K> {
  /** Its key in the spec's `alerts` overrides; the naming module makes its name of it. */
  readonly key: K;
  readonly watches: Watched;
  /** What its threshold counts, for the table of presets in the docs. */
  readonly thresholdUnit: string;
  /**
   * Its row of the alert table in docs/alerts.md (what it means, its query simplified), and,
   * when it explains other alerts, why (the inhibit table there): `npm run docs:alerts`
   * writes those tables, and the presets table of docs/spec.md, from the list.
   */
  readonly docs: { readonly meaning: string; readonly query: string; readonly explainsBecause?: string };
  /** Threshold, `for` and severity per criticality (R16); the spec can override each. */
  readonly presets: Readonly<Record<Criticality, AlertPolicy>>;
  /** Whether a consumer has this alert at all; every consumer has it when absent. */
  // Methods, not function properties: one list holds modules that read different policies.
  appliesTo?(consumer: AlertedConsumer<R>): boolean;
  /** Its rules for one consumer, each with the promtool cases that fire it and keep it quiet. */
  rules(ctx: AlertContext<R>): AlertRule[];
  /** What its runbook section says for one consumer. */
  runbook(consumer: AlertedConsumer<R>): RunbookFacts;
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
  readonly explains?: readonly R[];
}

export interface AlertModule<K extends string = string, R extends string = string> extends AlertParts<K, R> {
  /** The alert's name, made by the naming module of its key. */
  readonly name: AlertName<K>;
  /**
   * Never set: it carries `R` (the keys its parts' types say it mentions) to everyAlert,
   * which checks each is an alert's.
   */
  readonly reads?: R;
}

/** An alert module: its parts, named by the naming module. Leaving out a part does not compile. */
export function defineAlert<const K extends string, R extends string = K>(parts: AlertParts<K, R | K>): AlertModule<K, R | K> {
  return { ...parts, name: alertName(parts.key) };
}

/** Whether the consumer has the alert. */
export function appliesTo(alert: AlertModule, consumer: AlertedConsumer<string>): boolean {
  return alert.appliesTo?.(consumer) ?? true;
}

type KeysOf<M extends readonly AlertModule[]> = M[number]['key'];
type ReadsOf<M extends readonly AlertModule[]> = M[number] extends infer A ? (A extends AlertModule<string, infer R> ? R : never) : never;

/** Keys a module reads or explains that no module of the list has: each a typo or a module left out of it. */
export type Unknown<M extends readonly AlertModule[]> = Exclude<ReadsOf<M>, KeysOf<M>>;

/** The items of a tuple that come more than once. */
type Repeated<T extends readonly unknown[], Seen = never> = T extends readonly [infer First, ...infer Rest] ? ([First] extends [Seen] ? First | Repeated<Rest, Seen> : Repeated<Rest, Seen | First>) : never;
type KeysInOrder<M extends readonly AlertModule[]> = { readonly [I in keyof M]: M[I]['key'] };
type NamesInOrder<M extends readonly AlertModule[]> = { readonly [I in keyof M]: M[I]['name'] };

/** What is wrong with a list of alert modules, as the compile error shows it; nothing when nothing is. */
type ListProblems<M extends readonly AlertModule[]> = ([Unknown<M>] extends [never] ? unknown : { readonly unknownAlertKeys: Unknown<M> }) &
  ([Repeated<KeysInOrder<M>>] extends [never] ? unknown : { readonly duplicateAlertKeys: Repeated<KeysInOrder<M>> }) &
  ([Repeated<NamesInOrder<M>>] extends [never] ? unknown : { readonly duplicateAlertNames: Repeated<NamesInOrder<M>> });

/**
 * Takes the list of alert modules as it is (their keys make the spec's override keys),
 * and compiles only while every key a module reads or explains is one of theirs, and no
 * key or name comes twice (two keys can make one name: `tierStuck` and `retryTierStuck`):
 * the error shows what is wrong.
 */
export function everyAlert<const M extends readonly AlertModule[]>(modules: M & ListProblems<M>): M {
  return modules;
}
