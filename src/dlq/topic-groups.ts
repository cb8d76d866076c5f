import { AssignerProtocol } from 'kafkajs';
import type { Kafka } from 'kafkajs';
import { retryingRetriable } from './retriable';

/** The groups that read a topic, as far as the principal may see them. */
export interface TopicReaders {
  /** Groups of the topologies' other consumers of the topic, and groups the broker shows reading it. */
  readonly groups: readonly string[];
  /** Set when the broker would not list or describe groups: there may be readers not named. */
  readonly incomplete?: string;
}

/**
 * Every group other than `own` that reads `topic`: the `known` ones (the groups of the
 * topologies' other consumers of the topic), and those the broker lists with a member
 * assigned one of its partitions or (with no member now) committed offsets on it. The
 * broker lists only the groups the principal may describe: with the generated ACLs, its
 * own (no wildcard grant), so groups outside the topologies show up only where an operator
 * granted the replay principal Describe on them.
 */
export async function groupsReading(kafka: Kafka, topic: string, own: readonly string[], known: readonly string[]): Promise<TopicReaders> {
  const found = await groupsTheBrokerShows(kafka, topic, [...own, ...known]);
  return { ...found, groups: [...new Set([...known, ...found.groups])].sort() };
}

async function groupsTheBrokerShows(kafka: Kafka, topic: string, skip: readonly string[]): Promise<TopicReaders> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const listed = await retryingRetriable(() => admin.listGroups());
    const candidates = listed.groups.map((g) => g.groupId).filter((g) => !skip.includes(g)).sort();
    if (candidates.length === 0) return { groups: [] };
    const { groups } = await retryingRetriable(() => admin.describeGroups(candidates));
    const readers: string[] = [];
    const unread: string[] = [];
    for (const group of groups) {
      if ((group as { errorCode?: number }).errorCode) continue;
      const assigned = group.members.some((m) => {
        try {
          return Object.keys(AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? {}).includes(topic);
        } catch {
          return false; // not the consumer protocol
        }
      });
      if (assigned) readers.push(group.groupId);
      else if (group.members.length === 0) {
        try {
          const [offsets] = await retryingRetriable(() => admin.fetchOffsets({ groupId: group.groupId, topics: [topic] }));
          if (offsets?.partitions.some((p) => /^\d+$/.test(p.offset))) readers.push(group.groupId);
        } catch (error) {
          unread.push(`${group.groupId} (${(error as Error).message})`);
        }
      }
    }
    return { groups: readers.sort(), ...(unread.length > 0 ? { incomplete: `could not read the offsets of ${unread.join(', ')}` } : {}) };
  } catch (error) {
    return { groups: [], incomplete: (error as Error).message };
  } finally {
    await admin.disconnect();
  }
}
