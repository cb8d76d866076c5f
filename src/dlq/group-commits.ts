import type { Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { retryingRetriable } from './retriable';
import { committedByPartition, decodeHandled } from '../runtime/dlq-handled';
import type { HandledState } from '../runtime/dlq-handled';

export type KafkaAdmin = ReturnType<Kafka['admin']>;

/** A partition's commit in the replay group: its offset and the handled state's metadata. */
export type GroupCommits = ReadonlyMap<number, { offset: string; metadata: string | null }>;

/** The replay group's committed offsets of the DLQ, by partition: those it has. */
export async function groupCommits(admin: KafkaAdmin, consumer: ConsumerModel): Promise<Map<number, { offset: string; metadata: string | null }>> {
  const [committed] = await retryingRetriable(() => admin.fetchOffsets({ groupId: consumer.groups.replay, topics: [consumer.dlq.name] }));
  return committedByPartition(committed?.partitions ?? []);
}

/** The handled state of these partitions in `commits`; no commit: nothing handled. */
export const statesOf = (commits: GroupCommits, partitions: readonly number[]): Map<number, HandledState> =>
  new Map(partitions.map((partition) => [partition, decodeHandled(BigInt(commits.get(partition)?.offset ?? '0'), commits.get(partition)?.metadata)]));

/** The replay group's committed state of these partitions of the DLQ (no commit: nothing handled). */
export async function committedStates(admin: KafkaAdmin, consumer: ConsumerModel, partitions: readonly number[]): Promise<Map<number, HandledState>> {
  return statesOf(await groupCommits(admin, consumer), partitions);
}
