/** One retry consumer group per consumer, reading all of its tiers. */
export function retryGroupName(group: string): string {
  return `${group}.retry`;
}

/** The monitor's own group: it reads DLQ heads for the oldest-record gauge and never commits. */
export function monitorGroupName(group: string): string {
  return `${group}.dlq-monitor`;
}

/** The DLQ replay and audit group: its lag is the DLQ backlog. */
export function replayGroupName(group: string): string {
  return `${group}.dlq-replay`;
}
