/** Alert names, one rule group per consumer; the keys are the spec's override keys. */
export const ALERTS = {
  dlqNewMessages: 'KafkaDlqNewMessages',
  dlqBacklog: 'KafkaDlqBacklog',
  dlqOldestMessageAge: 'KafkaDlqOldestMessageAge',
  retryTierStuck: 'KafkaRetryTierStuck',
  retryRateSpike: 'KafkaRetryRateSpike',
  dlqRecordsExpired: 'KafkaDlqRecordsExpired',
  mainConsumerLag: 'KafkaRetryMainConsumerLag',
  consumerDown: 'KafkaRetryConsumerDown',
  monitorDown: 'KafkaRetryMonitorDown',
} as const;

export type AlertKey = keyof typeof ALERTS;
export const ALERT_KEYS = Object.keys(ALERTS) as AlertKey[];

export function runbookFileName(consumer: string): string {
  return `${consumer}.md`;
}

/** The heading anchor of an alert's runbook section: the alert name in lower case. */
export function runbookAnchor(alert: AlertKey): string {
  return ALERTS[alert].toLowerCase();
}

export function runbookUrl(runbookBaseUrl: string, consumer: string, alert: AlertKey): string {
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
