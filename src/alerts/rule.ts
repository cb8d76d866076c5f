/** Prometheus's template function that renders an alert's value in its description. */
export type ValueFormat = 'humanize' | 'humanizeDuration' | 'humanizePercentage';

/** One input series of a promtool rule test: a selector and its expanding notation. */
export interface TestSeries {
  readonly series: string;
  readonly values: string;
}

/** A scenario that must make an alert fire (with `value`) or keep it quiet. */
export interface RuleScenario {
  readonly name: string;
  readonly interval: string;
  readonly series: readonly TestSeries[];
  readonly evalTime: string;
  /** The alert's value at evalTime when it fires; absent for a quiet scenario. */
  readonly value?: number;
}

/**
 * An alerting rule and the two scenarios that prove it: one at or just past its
 * threshold that fires, one just short of it that stays quiet.
 */
export interface AlertRule {
  /** The alert's key (its module's). */
  readonly key: string;
  readonly alert: string;
  readonly expr: string;
  readonly forMs: number;
  /** How long the alert stays firing after its condition clears (Prometheus `keep_firing_for`). */
  readonly keepFiringForMs?: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly summary: string;
  /** Renders the description around the alert's value, given as template or as text. */
  readonly description: (value: string) => string;
  readonly valueFormat: ValueFormat;
  readonly runbookUrl: string;
  readonly firing: RuleScenario;
  readonly quiet: RuleScenario;
}
