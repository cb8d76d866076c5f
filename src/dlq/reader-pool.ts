import type { Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { dlqReaderGroupName } from '../naming';
import { DlqReaderClosed, ReaderMember } from './reader-member';

/** Where a DLQ read gets its member of the reader group, and where it gives it back. */
export interface DlqReaders {
  take(consumer: ConsumerModel): ReaderMember;
  give(member: ReaderMember): Promise<void>;
}

/** A member per read, left when the read ends: `krt dlq`'s one read per process. */
export function memberPerRead(kafka: Kafka): DlqReaders {
  return {
    take: (consumer) => ReaderMember.start(kafka, dlqReaderGroupName(consumer.groups.replay), consumer.dlq.name, false),
    give: (member) => member.close(),
  };
}

/** How long a member no read needs stays in the reader group. */
export const DEFAULT_READER_IDLE_MS = 60_000;

/**
 * Members that linger between reads, for the console: a read takes an idle member of its
 * consumer's reader group, or starts one when none is idle (reads still run side by side:
 * a page does not wait for a count), and gives it back when done. A member idle for
 * `idleMs` leaves the group, and close() leaves at once with every member, idle or not.
 *
 * Why: a member that leaves empties the group, and the next one to join an empty group
 * waits out the broker's group.initial.rebalance.delay.ms (3 s by default) in JoinGroup,
 * so a member per read made every page wait that long. A member that stays joins once.
 */
export function lingeringReaders(kafka: Kafka, idleMs = DEFAULT_READER_IDLE_MS): DlqReaders & { warm(consumers: readonly ConsumerModel[]): void; close(): Promise<void> } {
  const idle = new Map<string, { member: ReaderMember; timer: NodeJS.Timeout }[]>();
  let closed = false;
  const keyOf = (group: string, topic: string) => `${group}\u0000${topic}`;
  const groups = new Map<ReaderMember, string>();
  const leave = async (member: ReaderMember) => {
    groups.delete(member);
    await member.close();
  };
  const readers = {
    take(consumer: ConsumerModel): ReaderMember {
      // A request still running when the console closed would start a member close() never saw.
      if (closed) throw new DlqReaderClosed();
      const key = keyOf(dlqReaderGroupName(consumer.groups.replay), consumer.dlq.name);
      const waiting = idle.get(key) ?? [];
      for (let next = waiting.pop(); next; next = waiting.pop()) {
        clearTimeout(next.timer);
        if (next.member.usable) return next.member;
        void leave(next.member);
      }
      const member = ReaderMember.start(kafka, dlqReaderGroupName(consumer.groups.replay), consumer.dlq.name, true);
      groups.set(member, key);
      return member;
    },
    async give(member: ReaderMember): Promise<void> {
      const key = groups.get(member);
      if (closed || !member.usable || key === undefined) return leave(member);
      const timer = setTimeout(() => {
        const list = idle.get(key) ?? [];
        idle.set(key, list.filter((i) => i.member !== member));
        void leave(member);
      }, idleMs);
      // An idle member alone does not keep the process alive.
      timer.unref();
      idle.set(key, [...(idle.get(key) ?? []), { member, timer }]);
    },
    /**
     * Starts a member for each consumer that has none idle, and leaves it idle: it joins in the
     * background, so the console's first page finds it joined (or part of the way there)
     * instead of waiting out the broker's initial rebalance delay.
     */
    warm(consumers: readonly ConsumerModel[]): void {
      for (const consumer of consumers) {
        if (closed || (idle.get(keyOf(dlqReaderGroupName(consumer.groups.replay), consumer.dlq.name))?.length ?? 0) > 0) continue;
        void readers.give(readers.take(consumer));
      }
    },
    /** Leaves with every member, idle or serving a read: a read under way ends with an error (ReaderMember.close). */
    async close(): Promise<void> {
      closed = true;
      for (const { timer } of [...idle.values()].flat()) clearTimeout(timer);
      idle.clear();
      await Promise.all([...groups.keys()].map(leave));
    },
  };
  return readers;
}
