import type { Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { dlqReaderGroupName } from '../naming';
import { discardRecords, replayRecords } from '../dlq/replay';
import { replayRoute, replayTarget } from '../dlq/replay-route';
import type { ReplayRoute } from '../dlq/replay-route';
import { lingeringReaders } from '../dlq/reader-pool';
import { DlqError, DlqSession } from '../dlq/session';
import type { DlqRecord } from '../dlq/session';
import type { ActionOutcome, AuditLogEntry, Chooser, ConsoleDlq, DlqSnapshot, Keep, ReadScope } from './backend';
import { readAuditLog } from '../dlq/audit-log';

/**
 * The console's DLQ over src/dlq, as `krt dlq` uses it: a session per page or action, left
 * as soon as it is done so a `krt dlq` command can run between two clicks. Reads run at
 * once, side by side (the reader group gives every member every partition: a page need not
 * wait for a count of a million records); actions of one consumer run one at a time.
 *
 * The sessions' members of the reader group linger between reads (lingeringReaders): a
 * member per page would join an empty group each time, and wait out the broker's
 * group.initial.rebalance.delay.ms (3 s by default) on every page and count. A member idle
 * for `readerIdleMs` leaves, and close() leaves at once. `krt console` warms them as it
 * starts: by the time the engineer opens the page, the joins are done.
 */
export function kafkaConsoleDlq(kafka: Kafka, options: { readonly readerIdleMs?: number } = {}): ConsoleDlq {
  const readers = lingeringReaders(kafka, options.readerIdleMs);
  const queues = new Map<string, Promise<unknown>>();
  const oneAtATime = <T>(consumer: ConsumerModel, work: () => Promise<T>): Promise<T> => {
    const previous = queues.get(consumer.name) ?? Promise.resolve();
    const next = previous.then(work, work);
    queues.set(consumer.name, next.catch(() => undefined));
    return next;
  };
  // The sessions open now: close() leaves with them, so an action still in its part when the
  // console stops does not keep the replay group's member (the lease) for a session timeout.
  const open = new Set<DlqSession>();
  const inSession = async <T>(consumer: ConsumerModel, keep: Keep, work: (session: DlqSession) => Promise<T>, scope?: ReadScope) => {
    const session = await DlqSession.open(kafka, consumer, undefined, keep, scope, readers);
    open.add(session);
    try {
      return await work(session);
    } finally {
      open.delete(session);
      await session.close();
    }
  };
  // An action still queued, or not yet reading, when the console stops does not begin: it would read the whole selection first.
  const withSession = <T>(consumer: ConsumerModel, chooser: Chooser, signal: AbortSignal | undefined, work: (session: DlqSession) => Promise<T>) =>
    oneAtATime(consumer, () => {
      if (signal?.aborted) throw new DlqError(NOT_BEGUN);
      return inSession(consumer, chooser.keep, work, chooser.scope);
    });
  const snapshotOf = (session: DlqSession): DlqSnapshot => ({ records: session.records, expired: session.expired, ends: session.ends, handledVersion: session.handledVersion, backlog: session.backlog });
  // The audit log is read in the reader group, which holds no state, beside anything else,
  // as pages are: it commits nothing, so it never waits behind a replay that writes to it.
  const auditLog = (consumer: ConsumerModel, limit: number) => readAuditLog(kafka, consumer, dlqReaderGroupName(consumer.groups.replay), limit);
  /** The default route of `krt dlq replay`; undefined for a consumer that has none (no tier). */
  const routeOf = (consumer: ConsumerModel): ReplayRoute | undefined => {
    try {
      return replayRoute(consumer);
    } catch {
      return undefined;
    }
  };
  const writtenBy = async (consumer: ConsumerModel, ids: readonly string[], by: string, since: string): Promise<AuditLogEntry[]> => {
    if (ids.length === 0) return [];
    const wanted = new Set(ids);
    // Beside each record a step writes up to two `no-records` entries (the marker ranges on
    // either side), and two more per partition (`expired`, `handled-below`): its entries are
    // among the newest 3n + 2p.
    const recent = await auditLog(consumer, Math.max(100, 3 * ids.length + 2 * consumer.dlq.partitions + 10));
    return recent.filter((e) => wanted.has(e.key) && e.by === by && e.at >= since);
  };
  return {
    read: (consumer, keep, use, scope) =>
      inSession(
        consumer,
        keep,
        async (session) => {
          await session.close();
          return use(snapshotOf(session));
        },
        scope,
      ),
    replayTarget: (consumer, record) => {
      const route = routeOf(consumer);
      if (!route) throw new DlqError(noRouteSentence(consumer));
      return replayTarget(consumer, route, record);
    },
    replayRouteSentence: (consumer) => {
      const route = routeOf(consumer);
      if (!route) return noRouteSentence(consumer);
      return `to ${route.topic}, ${consumer.name}'s first retry tier, due at once, each record to its original partition: only ${consumer.name}'s group reads it, no other group on ${consumer.mainTopic.name} sees it again`;
    },
    async replay(consumer, chooser: Chooser, options): Promise<ActionOutcome> {
      const since = new Date().toISOString();
      const handled = await withSession(consumer, chooser, options.signal, async (session) => {
        const chosen = chooser.choose(snapshotOf(session));
        const route = routeOf(consumer);
        if (!route) throw new DlqError(noRouteSentence(consumer));
        const result = await replayRecords(kafka, session, chosen, { route, rate: options.rate, by: options.by, onProgress: options.onProgress, signal: options.signal });
        const waiting = result.waiting.map((w) => ({ record: w.record, reason: w.reason }));
        return { ids: result.handled.map((r) => r.id), left: leftBy(chosen, result.handled, [...waiting, ...unreachedOf(result.unreached)]) };
      });
      return { handled: handled.ids, left: handled.left, audit: await writtenBy(consumer, handled.ids, options.by, since) };
    },
    async discard(consumer, chooser: Chooser, options): Promise<ActionOutcome> {
      const since = new Date().toISOString();
      const handled = await withSession(consumer, chooser, options.signal, async (session) => {
        const chosen = chooser.choose(snapshotOf(session));
        const result = await discardRecords(kafka, session, chosen, { reason: options.reason, by: options.by }, { signal: options.signal });
        options.onProgress(chosen.length, chosen.length);
        return { ids: result.handled.map((r) => r.id), left: leftBy(chosen, result.handled, unreachedOf(result.unreached)) };
      });
      return { handled: handled.ids, left: handled.left, audit: await writtenBy(consumer, handled.ids, options.by, since) };
    },
    auditLog,
    warm: (consumers) => readers.warm(consumers),
    close: async () => {
      await Promise.all([...open].map((session) => session.close().catch(() => undefined)));
      await readers.close();
    },
  };
}

/** Why an action left a record it was given: another command replayed or discarded it after this one's session read it. */
const HANDLED_MEANWHILE = 'another command replayed or discarded it meanwhile; left as it did';
/** What an action the console's stop came before says. */
const NOT_BEGUN = 'the console stopped before this action began: nothing was published, discarded or recorded';
/** Why an action left a record it was given: it was stopped (the console stopping) before the record's step began. */
const STOPPED_BEFORE = 'the action was stopped before its turn; still unhandled in the DLQ';

const unreachedOf = (records: readonly DlqRecord[]) => records.map((record) => ({ record, reason: STOPPED_BEFORE }));

/**
 * The records an action was given and did not handle, each with why: the reasons it gave
 * (waiting for its key, stopped before its turn), and for any other one, that another
 * command handled it meanwhile (the action's steps found it handled).
 */
function leftBy(chosen: readonly DlqRecord[], handled: readonly DlqRecord[], reasons: readonly { record: DlqRecord; reason: string }[]): { id: string; reason: string }[] {
  const done = new Set(handled);
  const why = new Map(reasons.map((r) => [r.record, r.reason]));
  return chosen.filter((r) => !done.has(r)).map((r) => ({ id: r.id, reason: why.get(r) ?? HANDLED_MEANWHILE }));
}

/** What the console says of a consumer without a route of its own (no retry tier). */
function noRouteSentence(consumer: ConsumerModel): string {
  return `${consumer.name} has no retry tier, so no route leads back to its group alone; replay it from the terminal with \`krt dlq replay --to main-topic\`, which names every group that would process it again`;
}
