import type { ActionOutcome, AuditLogEntry, Chooser, ConsoleDlq, DlqSnapshot, ReadScope } from '../../src/console/backend';
import { preview } from '../../src/dlq/session';
import { recordMark } from '../../src/runtime/record-mark';
import type { DlqRecord } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { decodeDlqHeaders } from '../../src/dlq/origin';
import type { RawHeaders } from '../../src/runtime/headers';
import { replayCountOf } from '../../src/dlq/replay-count';

/** A DLQ record as a session reads it, headers decoded as the DLQ tools decode them (any layout). */
export function dlqRecord(partition: number, offset: number, fields: { key?: string | Buffer | null; value?: string | Buffer | null; headers?: RawHeaders; timestamp?: number }): DlqRecord {
  const headers = fields.headers ?? {};
  const bytes = (v: string | Buffer | null | undefined) => (v === undefined || v === null ? null : Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8'));
  return {
    id: `${partition}:${offset}`,
    partition,
    offset: BigInt(offset),
    timestamp: fields.timestamp ?? Date.parse('2026-12-01T10:00:00Z') + offset * 1000,
    key: bytes(fields.key),
    value: bytes(fields.value),
    headers,
    decoded: decodeDlqHeaders(headers),
    replayCount: replayCountOf(headers),
  };
}

/** The console's DLQ with records in memory: what was acted on is recorded, not published. */
export function fakeDlq(records: DlqRecord[]): ConsoleDlq & { acted: { action: string; ids: string[]; by: string; reason?: string }[]; mostKept: number; mostHeldBytes: number; lastRead: number; handledVersion: number } {
  const acted: { action: string; ids: string[]; by: string; reason?: string }[] = [];
  const audit: AuditLogEntry[] = [];
  // As a session reads: each partition in offset order from where the scope says, partitions
  // interleaved, a batch of one record; only kept records are held, and what was read is counted.
  const snapshot = (keep: (r: DlqRecord) => boolean, scope: ReadScope = {}): DlqSnapshot => {
    const ends = new Map<number, bigint>();
    for (const r of records) ends.set(r.partition, (ends.get(r.partition) ?? 0n) > r.offset + 1n ? ends.get(r.partition)! : r.offset + 1n);
    const starts = new Map([...ends.keys()].map((p) => [p, scope.from ? scope.from(p) : 0n] as const));
    const stopped = new Set<number>();
    const order = [...records].sort((a, b) => (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : a.partition - b.partition));
    const kept: DlqRecord[] = [];
    let read = 0;
    for (const r of order) {
      const start = starts.get(r.partition);
      if (start === undefined || r.offset < start || stopped.has(r.partition)) continue;
      read++;
      scope.witness?.(r.partition, r.offset, recordMark({ timestamp: String(r.timestamp), key: r.key, value: r.value }));
      if (keep(r)) kept.push(scope.previewBytes === undefined ? r : preview(r, scope.previewBytes));
      for (const p of ends.keys()) if (!stopped.has(p) && scope.enough?.(p, p === r.partition ? r.offset + 1n : (starts.get(p) ?? 0n))) stopped.add(p);
    }
    kept.sort((a, b) => a.partition - b.partition || (a.offset < b.offset ? -1 : 1));
    fake.mostKept = Math.max(fake.mostKept, kept.length);
    fake.mostHeldBytes = Math.max(fake.mostHeldBytes, kept.reduce((n, r) => n + (r.value?.length ?? 0) + (r.key?.length ?? 0), 0));
    fake.lastRead = read;
    return { records: kept, expired: [], ends, handledVersion: String(fake.handledVersion), backlog: records.length };
  };
  const act = (action: 'replayed' | 'discarded', consumer: ConsumerModel, chosen: readonly DlqRecord[], by: string, reason?: string): ActionOutcome => {
    acted.push({ action, ids: chosen.map((r) => r.id), by, ...(reason ? { reason } : {}) });
    const written = chosen.map((r, i): AuditLogEntry => ({ partition: 0, offset: String(audit.length + i), key: r.id, action, by, at: '2026-12-01T12:00:00.000Z', ...(reason ? { reason } : {}), fields: { consumer: consumer.name } }));
    audit.push(...written);
    for (const r of chosen) records.splice(records.indexOf(r), 1);
    fake.handledVersion++;
    return { handled: chosen.map((r) => r.id), left: [], audit: written };
  };
  const fake = {
    acted,
    mostKept: 0,
    mostHeldBytes: 0,
    lastRead: 0,
    handledVersion: 0,
    read: async <T>(_consumer: ConsumerModel, keep: (r: DlqRecord) => boolean, use: (s: DlqSnapshot) => T, scope?: ReadScope) => use(snapshot(keep, scope)),
    replayTarget: (consumer: ConsumerModel, record: DlqRecord) => ({ topic: consumer.mainTopic.name, partition: record.decoded.originalPartition }),
    replayRouteSentence: (consumer: ConsumerModel) => `to ${consumer.mainTopic.name}`,
    replay: async (consumer: ConsumerModel, chooser: Chooser, options: { rate: number; by: string; onProgress: (done: number, total: number) => void }) => {
      const chosen = chooser.choose(snapshot(chooser.keep));
      options.onProgress(chosen.length, chosen.length);
      return act('replayed', consumer, chosen, options.by);
    },
    discard: async (consumer: ConsumerModel, chooser: Chooser, options: { reason: string; by: string }) => act('discarded', consumer, chooser.choose(snapshot(chooser.keep)), options.by, options.reason),
    auditLog: async () => [...audit].reverse(),
  };
  return fake;
}
