import type { Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { discardRecords, replayRecords, replayTarget } from '../dlq/replay';
import { DlqSession } from '../dlq/session';
import type { ActionOutcome, AuditLogEntry, Chooser, ConsoleDlq, DlqSnapshot, Keep } from './backend';
import { readAuditLog } from './audit-log';

/**
 * The console's DLQ over src/dlq, as `krt dlq` uses it: a session per page or action, left
 * as soon as it is done so a `krt dlq` command can run between two clicks. Sessions of one
 * consumer run one at a time: two members of its replay group would split its partitions.
 */
export function kafkaConsoleDlq(kafka: Kafka): ConsoleDlq {
  const queues = new Map<string, Promise<unknown>>();
  const oneAtATime = <T>(consumer: ConsumerModel, work: () => Promise<T>): Promise<T> => {
    const previous = queues.get(consumer.name) ?? Promise.resolve();
    const next = previous.then(work, work);
    queues.set(consumer.name, next.catch(() => undefined));
    return next;
  };
  const withSession = <T>(consumer: ConsumerModel, keep: Keep, work: (session: DlqSession) => Promise<T>) =>
    oneAtATime(consumer, async () => {
      const session = await DlqSession.open(kafka, consumer, undefined, keep);
      try {
        return await work(session);
      } finally {
        await session.close();
      }
    });
  const snapshotOf = (session: DlqSession): DlqSnapshot => ({ records: session.records, expired: session.expired });
  // The audit log is read in the replay group, never committing, between sessions.
  const auditLog = (consumer: ConsumerModel, limit: number) => oneAtATime(consumer, () => readAuditLog(kafka, consumer, consumer.groups.replay, limit));
  const writtenBy = async (consumer: ConsumerModel, ids: readonly string[], by: string, since: string): Promise<AuditLogEntry[]> => {
    if (ids.length === 0) return [];
    const wanted = new Set(ids);
    const recent = await auditLog(consumer, Math.max(100, ids.length + 10));
    return recent.filter((e) => wanted.has(e.key) && e.by === by && e.at >= since);
  };
  return {
    read: (consumer, keep, use) =>
      withSession(consumer, keep, async (session) => {
        await session.close();
        return use(snapshotOf(session));
      }),
    replayTarget: (consumer, record) => replayTarget(consumer, record),
    replayRouteSentence: (consumer) =>
      `to ${consumer.mainTopic.name}, the main topic, each record to its original partition: every consumer group that reads ${consumer.mainTopic.name} processes it again`,
    async replay(consumer, chooser: Chooser, options): Promise<ActionOutcome> {
      const since = new Date().toISOString();
      const handled = await withSession(consumer, chooser.keep, async (session) => {
        const chosen = chooser.choose(snapshotOf(session));
        await replayRecords(kafka, session, chosen, { rate: options.rate, by: options.by, onProgress: options.onProgress });
        return chosen.map((r) => r.id);
      });
      return { handled, left: [], audit: await writtenBy(consumer, handled, options.by, since) };
    },
    async discard(consumer, chooser: Chooser, options): Promise<ActionOutcome> {
      const since = new Date().toISOString();
      const handled = await withSession(consumer, chooser.keep, async (session) => {
        const chosen = chooser.choose(snapshotOf(session));
        await discardRecords(kafka, session, chosen, { reason: options.reason, by: options.by });
        options.onProgress(chosen.length, chosen.length);
        return chosen.map((r) => r.id);
      });
      return { handled, left: [], audit: await writtenBy(consumer, handled, options.by, since) };
    },
    auditLog,
  };
}
