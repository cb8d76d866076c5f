/**
 * An alert's name, from its key (the spec's override key, a camelCase word its module in
 * src/alerts/ declares): `Kafka`, then `Retry` unless the key already names the DLQ or a
 * retry part (`dlq` or `retry` and then a capital letter), then the key with its first
 * letter in capitals: `dlqBacklog` -> `KafkaDlqBacklog`, `consumerDown` ->
 * `KafkaRetryConsumerDown`. The type and the function say the same for every key.
 */
export type AlertName<K extends string> = K extends `${'dlq' | 'retry'}${infer Rest}` ? (StartsWithCapital<Rest> extends true ? `Kafka${Capitalize<K>}` : `KafkaRetry${Capitalize<K>}`) : `KafkaRetry${Capitalize<K>}`;

/** Whether a text begins with a capital letter (one that has a small form: not a digit, nor `_`). */
type StartsWithCapital<S extends string> = S extends `${infer First}${string}` ? (Uppercase<First> extends First ? (Lowercase<First> extends First ? false : true) : false) : false;

export function alertName<K extends string>(key: K): AlertName<K> {
  const rest = /^(dlq|retry)(.*)$/s.exec(key)?.[2];
  const first = rest?.charAt(0) ?? '';
  const namesItself = first !== '' && first === first.toUpperCase() && first !== first.toLowerCase();
  return `Kafka${namesItself ? '' : 'Retry'}${key.charAt(0).toUpperCase()}${key.slice(1)}` as AlertName<K>;
}

/** The form of an alert's key (camelCase, as the spec's override keys are written) and of its name. */
export const ALERT_KEY_PATTERN = /^[a-z][A-Za-z0-9]*$/;
export const ALERT_NAME_PATTERN = /^Kafka[A-Z][A-Za-z0-9]*$/;

export function runbookFileName(consumer: string): string {
  return `${consumer}.md`;
}

/** The heading anchor of an alert's runbook section (by its key): the alert name in lower case. */
export function runbookAnchor(alert: string): string {
  return alertName(alert).toLowerCase();
}

export function runbookUrl(runbookBaseUrl: string, consumer: string, alert: string): string {
  return `${runbookBaseUrl.replace(/\/+$/, '')}/${runbookFileName(consumer)}#${runbookAnchor(alert)}`;
}

/** A consumer's runbook page, without an anchor. */
export function runbookPageUrl(runbookBaseUrl: string, consumer: string): string {
  return `${runbookBaseUrl.replace(/\/+$/, '')}/${runbookFileName(consumer)}`;
}

/** Runbook sections that are procedures rather than alerts, by their heading anchors. */
export const RUNBOOK_PROCEDURES = {
  inspectDlq: 'inspect-the-dlq',
} as const;

export function runbookProcedureUrl(runbookBaseUrl: string, consumer: string, procedure: keyof typeof RUNBOOK_PROCEDURES): string {
  return `${runbookPageUrl(runbookBaseUrl, consumer)}#${RUNBOOK_PROCEDURES[procedure]}`;
}

/** Labels the generated alerts set themselves; environment labels must differ from these. */
export const ALERT_LABELS = ['severity', 'team', 'consumer', 'topic', 'tier', 'partition', 'condition', 'alertname', 'le'] as const;

/** A Prometheus label name that is not reserved (`__` prefix). */
export const PROMETHEUS_LABEL_PATTERN = /^(?!__)[a-zA-Z_][a-zA-Z0-9_]*$/;
