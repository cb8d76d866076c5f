/**
 * The group that reads a consumer's tiers: one retry group for all of them,
 * `{group}.retry`. With park-by-key ordering it is the main group itself: one
 * co-partitioned group reads the main topic and the tiers, so the member that owns main
 * partition p also owns the tier partitions p that its failures go to.
 */
export function retryGroupName(group: string, ordering: 'unordered' | 'park-by-key' | 'in-place-only' = 'unordered'): string {
  return ordering === 'park-by-key' ? group : `${group}.retry`;
}

/** The monitor's own group: it reads DLQ heads for the oldest-record gauge and never commits. */
export function monitorGroupName(group: string): string {
  return `${group}.dlq-monitor`;
}

/** The DLQ replay and audit group: its lag is the DLQ backlog. */
export function replayGroupName(group: string): string {
  return `${group}.dlq-replay`;
}

/**
 * The group krt dlq reads the DLQ in. Never the replay group: kafkajs commits a reset
 * offset (without metadata) when retention passes its fetch position, which in the replay
 * group would erase the handled state. Its offsets mean nothing; nothing reads them.
 */
export function dlqReaderGroupName(replayGroup: string): string {
  return `${replayGroup}-reader`;
}
