/** A partition of an assignment, as the Confluent client's rebalance callback gives it. */
export interface AssignedPartition {
  readonly topic: string;
  readonly partition: number;
}

/**
 * The co-partitioned part of a member's assignment: partition p of a topic is kept only
 * when the member was given partition p of every subscribed topic. librdkafka's range
 * assignor co-partitions topics only while their partition counts are equal; after a
 * topic's count drifts (partitions added to the main topic and not to a tier), main p and
 * tier p can go to different members, and both would write p's park-by-key state. What is
 * dropped stays unread (its lag shows) instead: late, never lost or out of order.
 */
export function coPartitionedOnly<T extends AssignedPartition>(assignment: readonly T[], topics: readonly string[]): { kept: T[]; dropped: T[] } {
  const numbers = (topic: string) => new Set(assignment.filter((a) => a.topic === topic).map((a) => a.partition));
  const byTopic = topics.map(numbers);
  const inEvery = (partition: number) => byTopic.every((partitions) => partitions.has(partition));
  const kept: T[] = [];
  const dropped: T[] = [];
  for (const a of assignment) (topics.includes(a.topic) && inEvery(a.partition) ? kept : dropped).push(a);
  return { kept, dropped };
}
