import type { Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { retryingRetriable } from './retriable';
import { everyPartitionAssigner } from '../runtime/adapters/every-partition-assigner';
import { DlqError } from './dlq-error';
import { disconnectAfterRun } from '../runtime/adapters/kafkajs-leave';
import { onFatalCrash } from './fatal-crash';

/** One line of a consumer's DLQ audit log, as `audit()` wrote it. */
export interface AuditLogEntry {
  readonly partition: number;
  readonly offset: string;
  /** The audit record's key: the DLQ record id (or a partition's expired range). */
  readonly key: string;
  readonly action: string;
  readonly by: string;
  readonly at: string;
  readonly reason?: string;
  /** The whole entry as written, for the details. */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** The audit log is kept as JSON values; anything else in it is shown as it is, never parsed as markup. */
export function auditEntryOf(partition: number, offset: string, key: string, value: string): AuditLogEntry {
  let fields: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) fields = parsed as Record<string, unknown>;
  } catch {
    fields = { unreadable: value };
  }
  const text = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : '');
  return { partition, offset, key, action: text('action') || '?', by: text('by'), at: text('at'), ...(text('reason') ? { reason: text('reason') } : {}), fields };
}

/** Newest first: by the time written, then by position in the log. */
export function newestFirst(entries: readonly AuditLogEntry[]): AuditLogEntry[] {
  return [...entries].sort((a, b) => (a.at === b.at ? (BigInt(b.offset) > BigInt(a.offset) ? 1 : -1) : a.at < b.at ? 1 : -1));
}

/**
 * Reads the last `limit` entries of each partition of the consumer's audit log. It reads in
 * `group` without ever committing (the audit log has no handled state): seeks to each
 * partition's tail on joining, stops at the end offsets it saw first.
 */
export async function readAuditLog(kafka: Kafka, consumer: ConsumerModel, group: string, limit: number, timeoutMs = 30_000): Promise<AuditLogEntry[]> {
  const topic = consumer.dlqAudit.name;
  const admin = kafka.admin();
  await admin.connect();
  let offsets: { partition: number; low: string; high: string }[];
  try {
    offsets = await retryingRetriable(() => admin.fetchTopicOffsets(topic));
  } finally {
    await admin.disconnect();
  }
  const starts = new Map(offsets.map((p) => [p.partition, BigInt(p.high) - BigInt(limit) > BigInt(p.low) ? BigInt(p.high) - BigInt(limit) : BigInt(p.low)]));
  const ends = new Map(offsets.map((p) => [p.partition, BigInt(p.high)]));
  /** Where each partition's read got to: the next offset it needs. */
  const next = new Map(starts);
  const waiting = new Set(offsets.filter((p) => starts.get(p.partition)! < BigInt(p.high)).map((p) => p.partition));
  if (waiting.size === 0) return [];
  const entries: AuditLogEntry[] = [];
  // The DLQ's readers of the console linger in this group: a member of another protocol could not join it.
  const client = kafka.consumer({ groupId: group, retry: { retries: 5 }, partitionAssigners: [everyPartitionAssigner] });
  let running: Promise<void> | undefined;
  // Cleared however the read ends: a refused run() left it to hold a failed command for timeoutMs.
  let timer: NodeJS.Timeout | undefined;
  /** Set once the read ended: a batch still in hand then arms no timer again. */
  let ended = false;
  try {
    await client.connect();
    await client.subscribe({ topics: [topic], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      // A read stalls, it does not merely take long: the fallback reads a year of entries at
      // every open while a DLQ partition has no commit, and a bound on the whole read would refuse
      // every open (and so every replay that writes the state back) for as long as the log is long.
      const stalled = () => reject(new DlqError(`could not read ${topic} any further for ${timeoutMs / 1000}s (its end is ${[...ends].map(([p, end]) => `offset ${end} of partition ${p}`).join(', ')})`));
      const progressed = () => {
        clearTimeout(timer);
        if (!ended) timer = setTimeout(stalled, timeoutMs);
      };
      progressed();
      // Each join (a rejoin too: a DLQ reader of the console or of another command coming or
      // going) seeks where each partition got to, not where the read started: entries read
      // before the rejoin are not handed again.
      client.on(client.events.GROUP_JOIN, () => {
        for (const [partition, from] of next) client.seek({ topic, partition, offset: from.toString() });
      });
      // A join the broker refuses for good (the principal may not use the group) crashes the
      // runner after run() resolved: said at once, not after the stall timer.
      onFatalCrash(client, reject, `the reader of ${topic}`);
      running = client.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          const end = ends.get(batch.partition) ?? 0n;
          if (batch.messages.length > 0) progressed();
          let last = -1n;
          for (const message of batch.messages) {
            const offset = BigInt(message.offset);
            if (offset >= end) break;
            last = offset;
            // Before where the partition got to: handed already, fetched again after a rejoin's seek.
            if (offset < next.get(batch.partition)!) continue;
            next.set(batch.partition, offset + 1n);
            entries.push(auditEntryOf(batch.partition, message.offset, message.key?.toString('utf8') ?? '', message.value?.toString('utf8') ?? ''));
          }
          if (last + 1n >= end && waiting.delete(batch.partition) && waiting.size === 0) {
            ended = true;
            clearTimeout(timer);
            resolve();
          }
        },
      });
      running.catch(reject);
    }).finally(() => {
      // However the read ends (a refused run() too), no timer is armed again.
      ended = true;
    });
  } finally {
    clearTimeout(timer);
    await disconnectAfterRun(client, running);
  }
  return newestFirst(entries).slice(0, limit);
}
