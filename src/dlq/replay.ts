import type { Kafka, Producer } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { REPLAY_ROUTES } from '../naming';
import { sendChecked } from './checked-send';
import { appendToAuditLog, AUDIT_STEP_BYTES, auditMessageBytes, auditMessages, handledBelowOf } from './audit';
import type { AuditEntry, AuditMessage } from './audit';
import { recordsWaitingForTheirKey } from './key-turn';
import type { WaitingRecord } from './key-turn';
import { rateLimiter } from './rate-limit';
import type { LimiterClock } from './rate-limit';
import { replayMessage, replayTarget } from './replay-route';
import type { ReplayRoute } from './replay-route';
import { byLogOrder } from './select';
import { DlqError } from './session';
import type { DlqRecord, DlqSession } from './session';

export interface ReplayOptions {
  readonly route: ReplayRoute;
  /** Records per second at most, in any one-second window. */
  readonly rate: number;
  readonly by: string;
  readonly onProgress?: (done: number, total: number) => void;
  readonly now?: () => number;
  /** The rate limiter's clock (tests). */
  readonly clock?: LimiterClock;
  /** Once aborted, the replay ends at the next step boundary: after a commit, never between a publish and its commit. */
  readonly signal?: AbortSignal;
}

export interface ReplayResult {
  readonly replayed: number;
  /** The records this replay published and committed: not those another command handled since the session read them. */
  readonly handled: readonly DlqRecord[];
  /** Park-by-key records left in the DLQ because their key was busy when their step ran. */
  readonly waiting: readonly WaitingRecord[];
  /** The records of the steps it never began, as its signal was aborted: still unhandled in the DLQ. */
  readonly unreached: readonly DlqRecord[];
}

/** What a discard did: as a replay, without the records waiting for their key. */
export interface DiscardResult {
  readonly handled: readonly DlqRecord[];
  readonly unreached: readonly DlqRecord[];
}

/**
 * Records per publish, audit and commit step. A crash repeats at most the step in flight,
 * so it stays small; the rate limit makes it smaller still (never more than one second's worth).
 */
export const MAX_STEP_RECORDS = 500;

/** How an action cuts its records into the parts it publishes, audits and commits one after another. */
export interface PartPlan {
  /** Records per step: a step is read again (still unhandled?) before its parts go. */
  readonly stepSize: number;
  readonly entry: AuditEntry;
  /** The batch a broker writes a record in (see Step); unset: a part is not cut by batch (nothing is published). */
  readonly batchOf?: (record: DlqRecord) => string | undefined;
}

/** A replay's plan: steps of one second's worth at most, parts per target partition. */
export function replayPlan(consumer: ConsumerModel, options: { readonly route: ReplayRoute; readonly rate: number; readonly by: string }): PartPlan {
  return {
    stepSize: Math.min(MAX_STEP_RECORDS, rateLimiter(options.rate).capacity),
    entry: { action: 'replayed', by: options.by },
    batchOf: (record) => {
      const target = replayTarget(consumer, options.route, record);
      return target.partition === undefined ? undefined : `${target.topic}:${target.partition}`;
    },
  };
}

/** A discard's plan: nothing is published, so a part is what its audit entries fit. */
export function discardPlan(decision: { readonly reason: string; readonly by: string }): PartPlan {
  return { stepSize: MAX_STEP_RECORDS, entry: { action: 'discarded', ...decision } };
}

/** The parts of one step, in the order inSteps commits them. */
function partsOfStep(session: DlqSession, step: readonly DlqRecord[], plan: PartPlan, now: number): DlqRecord[][] {
  return withinAuditBudget(session, step, plan.entry, now).flatMap((part) => (plan.batchOf ? publishBatches(part, plan.batchOf) : [part]));
}

/**
 * Refuses, before anything is published, a selection whose handling could not all be
 * recorded: the handled state after each part's commit, in the order the action commits
 * them, must fit the replay group's commit metadata.
 */
export function checkRecordable(session: DlqSession, given: readonly DlqRecord[], plan: PartPlan): void {
  const records = inLogOrder(given);
  // Whether the first n records, as a selection of their own, commit part after part within the limit.
  const fitsAlone = (n: number) => {
    const parts: DlqRecord[][] = [];
    for (let i = 0; i < n; i += plan.stepSize) parts.push(...partsOfStep(session, records.slice(i, Math.min(n, i + plan.stepSize)), plan, Date.now()));
    return session.recordableParts(parts) === parts.length;
  };
  if (fitsAlone(records.length)) return;
  // The longest such run (as --limit takes it): handled records only merge as more join them.
  let fits = 0;
  let high = records.length;
  while (high - fits > 1) {
    const mid = (fits + high) >> 1;
    if (fitsAlone(mid)) fits = mid;
    else high = mid;
  }
  const blocked = records[fits]!;
  // Handling the oldest unhandled records of the partition moves its committed offset over
  // them and merges the ranges behind: the state shrinks, so that always fits.
  const advice =
    fits > 0
      ? `run again with --limit ${fits}, or first handle the oldest unhandled records of partition ${blocked.partition}`
      : `first replay or discard the oldest unhandled records of partition ${blocked.partition} (inspect lists them first; --all takes them in that order)`;
  throw new DlqError(
    `only the first ${fits} of these ${records.length} records can be recorded as handled: the rest would leave handled records too scattered for the replay group's commit. Nothing was published; ${advice}`,
  );
}

/**
 * Publishes the records through the route (same key, value and headers, the x-* headers
 * the route needs, x-replayed-from-dlq set, x-replay-count raised), in steps: each step is
 * checked to be recordable, published and acknowledged, written to the audit log, and
 * only then committed as handled. A crash never loses a replay or its audit entry and
 * repeats at most the records of the step in flight; a rerun never republishes a
 * committed one. Through the tier of a park-by-key consumer, records whose key is busy
 * wait in the DLQ (see recordsWaitingForTheirKey).
 */
export async function replayRecords(kafka: Kafka, session: DlqSession, given: readonly DlqRecord[], options: ReplayOptions): Promise<ReplayResult> {
  const { consumer } = session;
  const records = inLogOrder(given);
  for (const r of records) replayTarget(consumer, options.route, r);
  const plan = replayPlan(consumer, options);
  checkRecordable(session, records, plan);
  const limiter = rateLimiter(options.rate, options.clock);
  const now = options.now ?? Date.now;
  const waiting: WaitingRecord[] = [];
  const waitingKeys = new Set<string>();
  // A key's order is kept per main partition, the one the tier record names (a record without a key has one of its own).
  const keyOf = (r: DlqRecord) => `${replayTarget(consumer, options.route, r).partition}/${r.key === null ? `null:${r.id}` : r.key.toString('hex')}`;
  const throughTier = options.route.name === REPLAY_ROUTES.firstTier;
  const { handled, unreached } = await inSteps(kafka, session, records, plan, options, {
    ready: async (step) => {
      if (!throughTier) return step;
      const busy = await recordsWaitingForTheirKey(kafka, consumer, step);
      const left = new Set(busy.map((w) => w.record));
      // Once a record of a key waits, every later one of that key in this run waits behind it,
      // even after the key's retry ended: a later step must not send it ahead of the one left.
      for (const r of step) if (!left.has(r) && waitingKeys.has(keyOf(r))) busy.push({ record: r, reason: 'an earlier record of its key waits in the DLQ, left by this replay' });
      for (const w of busy) waitingKeys.add(keyOf(w.record));
      waiting.push(...busy);
      const waits = new Set(busy.map((w) => w.record));
      return step.filter((r) => !waits.has(r));
    },
    publish: async (producer, step, signal) => {
      const acknowledged = await limiter.take(step.length, signal).catch((error: unknown) => {
        throw signal?.aborted ? new StoppedBeforeSend('stopped while waiting for the rate limit') : error;
      });
      try {
        const at = now();
        await sendChecked(producer, options.route.topic, options.route.partitions, step.map((r) => replayMessage(consumer, options.route, r, at)));
      } finally {
        acknowledged();
      }
    },
  });
  return { replayed: handled.length, handled, waiting, unreached };
}

/**
 * Records a discard with its reason and who decided, then commits the records as handled.
 * Returns the records it discarded: not those another command handled since the session read
 * them, nor those of the steps it never began once `signal` was aborted.
 */
export async function discardRecords(
  kafka: Kafka,
  session: DlqSession,
  given: readonly DlqRecord[],
  decision: { reason: string; by: string },
  options: { readonly now?: () => number; readonly signal?: AbortSignal } = {},
): Promise<DiscardResult> {
  const records = inLogOrder(given);
  const plan = discardPlan(decision);
  checkRecordable(session, records, plan);
  return inSteps(kafka, session, records, plan, options, { publish: async () => {} });
}

/** Each record once, in log order (partition, then offset), however the caller listed them. */
function inLogOrder(records: readonly DlqRecord[]): DlqRecord[] {
  return [...new Map(records.map((r) => [r.id, r])).values()].sort(byLogOrder);
}

interface Step {
  /** The records of a step that may go now (all by default). */
  readonly ready?: (step: readonly DlqRecord[]) => Promise<readonly DlqRecord[]>;
  /** Throws StoppedBeforeSend when `signal` ends its wait before it sent anything. */
  readonly publish: (producer: ReturnType<Kafka['producer']>, step: readonly DlqRecord[], signal?: AbortSignal) => Promise<void>;
}

/**
 * Publish, audit, commit: in that order, so that whatever fails, nothing is committed
 * unaudited or audited unpublished. A step's audit entries are built, and the step cut to
 * what its audit fits, before anything of it is published: what could refuse them must do
 * so while nothing is done. Under the session's lease (one replay or discard per consumer at
 * a time), and each step re-reads the replay group's handled state first, so a record
 * handled since the session read it is not published again.
 */
async function inSteps(
  kafka: Kafka,
  session: DlqSession,
  records: readonly DlqRecord[],
  plan: PartPlan,
  options: { onProgress?: (done: number, total: number) => void; now?: () => number; signal?: AbortSignal },
  step: Step,
): Promise<DiscardResult> {
  const now = options.now ?? Date.now;
  if (options.signal?.aborted) return { handled: [], unreached: records };
  // restoreCommits takes the lease to commit: given back when it fails or no record follows,
  // else the session's member stayed in the replay group, refusing every other replay and
  // discard for as long as the session stayed open (the console keeps its session).
  try {
    await session.restoreCommits(async (expired, noRecords, states) => {
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      try {
        await appendToAuditLog(producer, session.consumer, auditMessages(session.consumer, { records: [], entry: plan.entry, expired, noRecords, handledBelow: handledBelowOf(states) }, now(), session.topicId));
      } finally {
        await producer.disconnect();
      }
    });
  } catch (error) {
    await session.release();
    throw error;
  }
  if (records.length === 0) {
    await session.release();
    return { handled: [], unreached: records };
  }
  await session.hold();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  const handled: DlqRecord[] = [];
  const unreached: DlqRecord[] = [];
  const stopped = () => options.signal?.aborted === true;
  let done = 0;
  try {
    await producer.connect();
    await recordFloors(producer, session, plan.entry, now());
    // A stop is heard between parts only: after a part's commit, never between its publish and its commit.
    while (done < records.length && !stopped()) {
      const chunk = records.slice(done, done + plan.stepSize);
      done += chunk.length;
      const unhandled = await session.stillUnhandled(chunk);
      const ready = step.ready ? await step.ready(unhandled) : unhandled;
      const parts = partsOfStep(session, ready, plan, now());
      // Checked again on what the step really cuts (records handled meanwhile or waiting for
      // their key leave holes the first check did not see), before any of it is published.
      const fitting = session.recordableParts(parts);
      if (fitting < parts.length) throw notRecordable(parts[fitting]!, handled.length);
      for (const [i, part] of parts.entries()) {
        const prepared = stopped() ? undefined : session.prepare(part);
        const sent = prepared && (await publishOrStop(step, producer, part, options.signal, handled.length));
        if (!prepared || !sent) {
          unreached.push(...parts.slice(i).flat());
          break;
        }
        await appendToAuditLog(producer, session.consumer, auditMessages(session.consumer, { records: part, entry: plan.entry, expired: prepared.expired, noRecords: prepared.noRecords, handledBelow: handledBelowOf(prepared.states) }, now(), session.topicId));
        await session.commit(prepared);
        handled.push(...part);
      }
      options.onProgress?.(done - (stopped() ? unreached.length : 0), records.length);
    }
  } finally {
    await Promise.all([producer.disconnect(), session.release()]);
  }
  return { handled, unreached: [...unreached, ...records.slice(done)] };
}

/**
 * Before the first step, the floor (`handled-below`) of every partition as the session holds
 * it, in sends within the audit share; the steps write those of the partitions they commit.
 * So a partition whose dead letters stopped coming keeps a floor as recent as the last command
 * on the DLQ, not as its last step. A floor at 0 with nothing expired says nothing a fold
 * does not assume, and is left out.
 */
async function recordFloors(producer: Producer, session: DlqSession, entry: AuditEntry, now: number): Promise<void> {
  const floors = handledBelowOf(session.heldStates()).filter((f) => f.belowOffset > 0n || f.expiredTotal > 0n);
  const messages = auditMessages(session.consumer, { records: [], entry, expired: [], handledBelow: floors }, now, session.topicId);
  // Before its entries, as a step checks before its publish: a DLQ created again since the open gets no entry of the log read.
  if (messages.length > 0) await session.checkLog();
  let part: AuditMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    if (part.length > 0 && bytes + auditMessageBytes(message) > AUDIT_STEP_BYTES) {
      await appendToAuditLog(producer, session.consumer, part);
      part = [];
      bytes = 0;
    }
    part.push(message);
    bytes += auditMessageBytes(message);
  }
  if (part.length > 0) await appendToAuditLog(producer, session.consumer, part);
}

/** A step whose part would leave the handled state too scattered to commit: nothing of the step was published. */
function notRecordable(part: readonly DlqRecord[], before: number): DlqError {
  return new DlqError(
    `recording ${part.map((r) => r.id).join(', ')} as handled would leave partition ${part[0]!.partition}'s handled records too scattered for the replay group's commit; nothing of their step was published. The ${before} records before it were published and recorded as handled; first replay or discard the oldest unhandled records of that partition, then run again`,
  );
}

/** Thrown by a publish that was stopped before it sent anything (a rate limiter's wait cut short). */
export class StoppedBeforeSend extends Error {
  override name = 'StoppedBeforeSend';
}

/** Kafka's refusals of a batch too large for the topic: no retry takes them. */
const TOO_LARGE = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);

/**
 * Publishes a part: true once acknowledged, false when stopped before anything was sent. A
 * batch the broker refuses as too large is said with its records; any other failure is
 * thrown as it came (its explanation, an ACL or a connection, is the client's).
 */
async function publishOrStop(step: Step, producer: ReturnType<Kafka['producer']>, part: readonly DlqRecord[], signal: AbortSignal | undefined, before: number): Promise<boolean> {
  try {
    await step.publish(producer, part, signal);
    return true;
  } catch (error) {
    if (error instanceof StoppedBeforeSend) return false;
    if (!TOO_LARGE.has(String((error as { type?: unknown }).type))) throw error;
    throw new DlqError(
      `the broker refused ${part.map((r) => r.id).join(', ')} as too large for the topic (${(error as Error).message}): a record among them is larger than its max.message.bytes. The ${before} records before them were published and recorded as handled; these and the rest are still unhandled. Discard the record, or raise the topic's max.message.bytes, then run again`,
      { cause: error },
    );
  }
}

/** Most bytes (keys, values, headers) of one part's publish: under a topic's default max.message.bytes (1 MB), with room for the headers a replay adds. */
export const PUBLISH_PART_BYTES = 900_000;

const recordBytes = (r: DlqRecord) =>
  (r.key?.length ?? 0) + (r.value?.length ?? 0) + Object.entries(r.headers).reduce((n, [name, v]) => n + name.length + (Array.isArray(v) ? v : [v]).reduce((m: number, x) => m + (Buffer.isBuffer(x) ? x.length : String(x ?? '').length), 0), 0);

/**
 * A part cut into batches a broker writes or refuses whole: the records of one target
 * partition together, up to PUBLISH_PART_BYTES (one record always makes a batch), and each
 * record whose partition the producer picks alone, flushed in log order, so a key's records
 * still go in the order they were read. A broker refusing one batch leaves the others written,
 * and each written batch is recorded as handled before the next is sent.
 */
export function publishBatches(part: readonly DlqRecord[], batchOf: NonNullable<PartPlan['batchOf']>): DlqRecord[][] {
  const out: DlqRecord[][] = [];
  let open = new Map<string, { records: DlqRecord[]; bytes: number }>();
  const flush = () => {
    for (const batch of open.values()) out.push(batch.records);
    open = new Map();
  };
  for (const record of part) {
    const key = batchOf(record);
    if (key === undefined) {
      flush();
      out.push([record]);
      continue;
    }
    const bytes = recordBytes(record);
    const batch = open.get(key);
    if (batch && batch.bytes + bytes <= PUBLISH_PART_BYTES) {
      batch.records.push(record);
      batch.bytes += bytes;
    } else {
      if (batch) out.push(batch.records);
      open.delete(key);
      open.set(key, { records: [record], bytes });
    }
  }
  flush();
  return out;
}

/** The records of a step in parts whose audit entries fit AUDIT_STEP_BYTES together, in order; one record always makes a part. */
function withinAuditBudget(session: DlqSession, records: readonly DlqRecord[], entry: AuditEntry, now: number): DlqRecord[][] {
  // Each record's entry and the `no-records` entries of the ranges next to it, which its commit may pass (a range between two records counts twice: the bound is safe).
  const sizes = auditMessages(session.consumer, { records, entry, expired: [] }, now, session.topicId).map(auditMessageBytes);
  records.forEach((record, i) => {
    const next = session.noRecordsNextTo(record.partition, record.offset);
    if (next.length > 0) sizes[i]! += auditMessages(session.consumer, { records: [], entry, expired: [], noRecords: next }, now, session.topicId).reduce((sum, m) => sum + auditMessageBytes(m), 0);
  });
  // And the `handled-below` entry of each partition a part commits, counted at its first record in the part (the most an entry of it takes).
  const floorBytes = auditMessages(session.consumer, { records: [], entry, expired: [], handledBelow: [{ partition: session.consumer.dlq.partitions, belowOffset: 2n ** 63n, expiredTotal: 2n ** 63n }] }, now, session.topicId).reduce((sum, m) => sum + auditMessageBytes(m), 0);
  const parts: DlqRecord[][] = [];
  let bytes = Infinity;
  let partitions = new Set<number>();
  const sizeIn = (i: number) => sizes[i]! + (partitions.has(records[i]!.partition) ? 0 : floorBytes);
  records.forEach((record, i) => {
    if (bytes + sizeIn(i) > AUDIT_STEP_BYTES) {
      parts.push([]);
      bytes = 0;
      partitions = new Set();
    }
    bytes += sizeIn(i);
    partitions.add(record.partition);
    parts[parts.length - 1]!.push(record);
  });
  return parts;
}
