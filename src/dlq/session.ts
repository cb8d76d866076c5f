import { retryingRetriable } from './retriable';
import type { Consumer, Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import type { RawHeaders, RetryHeaders } from '../runtime/headers';
import { headerMap } from '../runtime/headers';
import { decodeDlqHeaders } from './origin';
import { memberPerRead } from './reader-pool';
import type { DlqReaders } from './reader-pool';
import { MAX_HANDLED_METADATA_BYTES, absorbNoRecordOffsets, borderedNoRecords, decodeHandled, emptyHandled, encodeHandled, expiredGap, isHandled, keepsHandled, markHandled, partitionBacklog, passExpired, unionHandled } from '../runtime/dlq-handled';
import type { BorderedRange, HandledRange, HandledState } from '../runtime/dlq-handled';
import { replayCountOf } from './replay-count';
import { disconnectAfterRun } from '../runtime/adapters/kafkajs-leave';
import { DlqError } from './dlq-error';
import { committedStates, groupCommits } from './group-commits';
import type { KafkaAdmin } from './group-commits';
import { openingStates } from './opening-states';
import { checkSameLog } from './same-log';
import { topicIdOf } from './topic-id';
import { recordMark } from '../runtime/record-mark';
import { confirmedCommits } from '../runtime/adapters/kafkajs-commit';
import type { OffsetCommit } from '../runtime/port';
import { onFatalCrash } from './fatal-crash';

/** How long an idle fetch of the replay group's committing member waits: its disconnect waits for it. */
const COMMITTER_MAX_WAIT_MS = 100;

/** A DLQ record nobody has handled yet, with its headers decoded. */
export interface DlqRecord {
  /** `<partition>:<offset>`, as the CLI takes and prints record ids. */
  readonly id: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: RawHeaders;
  /** Origin and failure, from whichever header layout the record carries (decodeDlqHeaders). */
  readonly decoded: RetryHeaders;
  /** How many times a krt replay already sent this record back (0 if never). */
  readonly replayCount: number;
  /** recordMark of the whole record as read (a preview's cut bytes keep it): what its audit entry names it by. */
  readonly mark?: string;
}

/** Unhandled records of one partition that retention deleted before anyone handled them. */
export interface ExpiredRecords {
  readonly partition: number;
  /** All of them, ever: those earlier commands recorded plus those below the log start now. */
  readonly total: number;
  /** Those not yet recorded: between the replay group's offset and the log start. */
  readonly unrecorded: number;
  /** The partition's log start: every offset below it is gone. */
  readonly logStart: bigint;
}

/** What one commit will record: checked to fit before anything it covers is published. */
export interface PreparedCommit {
  readonly states: ReadonlyMap<number, HandledState>;
  /** Gaps below the log start this commit passes, to be audited with it. */
  readonly expired: readonly ExpiredRecords[];
  /** Offsets holding no record this commit passes, to be audited with it. */
  readonly noRecords?: readonly NoRecordsPassed[];
}

/** A range of offsets holding no record that a commit passes, with the handled offset next to it (borderedNoRecords). */
export interface NoRecordsPassed extends BorderedRange {
  readonly partition: number;
  /** The mark of the record at `border`, when the session read it. */
  readonly mark?: string;
}

export { DlqError };

/**
 * Which unhandled records a session holds. It sees every unhandled record once, each
 * partition in offset order, and says whether to keep it: pages, counts and selections
 * keep what they show or act on, never the whole DLQ.
 */
export type Keep = (record: DlqRecord) => boolean;

/**
 * How much of the DLQ a session reads; by default every unhandled record to the ends read
 * at open. A page, a record or a streamed listing reads less, or reads at the pace of
 * whoever takes the records, so neither time nor memory grows with the DLQ.
 */
export interface ReadScope {
  /** Where to start reading a partition (never before its live start), or undefined not to read it at all. */
  readonly from?: (partition: number) => bigint | undefined;
  /**
   * Asked after each record listed, of its partition, and after each fetched batch, of each
   * partition still being read, with the next offset it would read: true when the caller
   * needs nothing more of it, and reading it stops (the rest of the batch is not decoded).
   */
  readonly enough?: (partition: number, position: bigint) => boolean;
  /** Awaited after each fetched batch before the next is taken: a slow writer (a pipe) holds reading back. */
  readonly drain?: () => Promise<void>;
  /**
   * Hold kept records as previews: key, value and each header cut to this many bytes and
   * copied out of the fetch, so a listing of records of 10 MB holds kilobytes. Only for what
   * is shown, never for what is published: a preview's value is not the record's.
   */
  readonly previewBytes?: number;
  /**
   * Hears every record read below the ends, handled or not, with its mark (recordMark): what
   * a caller knows the log by. A count carried on from where it stopped re-reads the last
   * record it counted, and finds the same one there, or the topic was made again.
   */
  readonly witness?: (partition: number, offset: bigint, mark: string) => void;
}

/** A record with its bytes cut to `max` and copied, so it holds no fetch buffer alive. */
export function preview(record: DlqRecord, max: number): DlqRecord {
  const cut = (b: Buffer | null) => (b === null ? null : Buffer.from(b.subarray(0, max)));
  const headers = headerMap<unknown>();
  for (const [name, raw] of Object.entries(record.headers)) {
    headers[name] = Array.isArray(raw) ? raw.map((v) => (Buffer.isBuffer(v) ? cut(v) : v)) : Buffer.isBuffer(raw) ? cut(raw) : raw;
  }
  const text = (t: string | undefined) => (t !== undefined && t.length > max ? t.slice(0, max) : t);
  const decoded = { ...record.decoded, errorClass: text(record.decoded.errorClass), errorMessage: text(record.decoded.errorMessage), originalTopic: text(record.decoded.originalTopic) };
  return { ...record, key: cut(record.key), value: cut(record.value), headers: headers as RawHeaders, decoded };
}

/**
 * Refuses an open during which the DLQ was deleted and created again, where the session read
 * its id: the id was read at its start, before its commits and records, so a session of the old id over the new topic's offsets,
 * commits and records would take the old topic's audit entries (naming that id) as this
 * log's, whatever their records' marks, and hide the new records at their offsets from
 * `inspect`, a console page and a replay's selection. An id that cannot be read now leaves
 * the open as it is (each step's check reads it again).
 */
async function sameIdAfterOpen(kafka: Kafka, topic: string, read: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  let now: string | undefined;
  try {
    now = await topicIdOf(admin, topic).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
  if (now !== undefined && now !== read) {
    throw new DlqError(`${topic} was deleted and created again while this session read it (its topic id is ${now}, not the ${read} it read first): nothing was done; run the command again`);
  }
}

/**
 * A session in the consumer's replay group: it reads every unhandled record of the DLQ
 * (from the group's committed offsets, or the log start when retention deleted the
 * records there, to the end offsets read at open, skipping records handled beyond them)
 * and commits records as handled.
 *
 * The records are read in a group of their own (dlqReaderGroupName), never in the replay
 * group: when retention passes a fetch position, kafkajs commits the reset offset without
 * metadata in the group that fetched, and in the replay group that would erase the handled
 * state. The replay group gets a member only to commit, and that member never fetches.
 *
 * Any number of sessions may read at once; one at a time may change the handled state.
 * The committing member is that lease: a replay or discard holds it (hold) from before its
 * first publish to its end (release), and a second one is refused while it is held.
 */
export class DlqSession {
  private committer: Consumer | undefined;
  /** The committer's commit, done only when kafkajs reports the coordinator answered (kafkajs-commit.ts). */
  private commitConfirmed: ((offsets: OffsetCommit[]) => Promise<void>) | undefined;
  /** The committer's run(), which resolves once it joined: release() leaves after it. */
  private joining: Promise<void> | undefined;
  private admin: KafkaAdmin | undefined;
  private closed = false;
  /** Whether the committing member leads the replay group (the lease), as of its last join. */
  private leading = false;

  private constructor(
    private readonly kafka: Kafka,
    readonly consumer: ConsumerModel,
    readonly records: readonly DlqRecord[],
    readonly expired: readonly ExpiredRecords[],
    private readonly states: Map<number, HandledState>,
    private readonly logStarts: ReadonlyMap<number, bigint>,
    private readonly commitTimeoutMs: number,
    /** Offsets the read found holding no record (transaction markers, aborted records), per partition. */
    private readonly noRecords: ReadonlyMap<number, readonly HandledRange[]> = new Map(),
    /** Each partition's end offset (high watermark) read at open: the session read no further. */
    readonly ends: ReadonlyMap<number, bigint> = new Map(),
    /** Partitions whose handled state came from the audit log (no commit in the group): the first replay or discard commits them back. */
    restored: ReadonlySet<number> = new Set(),
    /** The DLQ topic's id as read at open, where the admin reports ids (topic-id.ts): every entry the session audits names it. */
    readonly topicId?: string,
  ) {
    this.unwritten = new Set(restored);
  }

  /** The log the session read, as checkSameLog compares the topic with it before each step's publish and commit. */
  private get logRead(): { ends: ReadonlyMap<number, bigint>; starts: ReadonlyMap<number, bigint>; topicId?: string } {
    return { ends: this.ends, starts: this.logStarts, ...(this.topicId === undefined ? {} : { topicId: this.topicId }) };
  }

  /** Partitions whose state came from the audit log and is not yet written to the replay group. */
  private readonly unwritten: Set<number>;

  /** The handled state of every partition as the session holds it now (a command records their floors: src/dlq/replay.ts). */
  heldStates(): ReadonlyMap<number, HandledState> {
    return new Map(this.states);
  }

  /**
   * Under the lease, before a replay's or discard's first step (even one with no record):
   * writes the handled state the audit log gave back to the replay group, so the monitor's
   * gauges and later sessions read it from the group again, and a record whose audit entry
   * was written but whose commit was not (a crash between the two) is committed now.
   * Partitions restored with nothing handled are written too, with it or, when nothing
   * restored holds anything, with the first step's commit (commit()): from then on a partition
   * without a commit is one whose commit was deleted. Each state is passed to the log start
   * as a step's commit passes it (prepare), and the gaps it passes are given to `audit` first,
   * as a step's are: audit, then commit.
   */
  async restoreCommits(audit: (expired: readonly ExpiredRecords[], noRecords: readonly NoRecordsPassed[], states: ReadonlyMap<number, HandledState>) => Promise<void>): Promise<void> {
    if (![...this.unwritten].some((p) => !isNothingHandled(this.states.get(p)!))) return;
    const states = new Map<number, HandledState>();
    const expired: ExpiredRecords[] = [];
    const noRecords: NoRecordsPassed[] = [];
    for (const partition of this.unwritten) {
      const before = this.states.get(partition)!;
      const logStart = this.logStarts.get(partition) ?? 0n;
      // The audit log names records, never the offsets between them that hold none (a
      // transactional producer's commit markers): without those, the state of a DLQ written in
      // transactions would be a run per transaction, too scattered to commit, for good. Below
      // the log start the read found none (retention deleted them with the records): the state
      // is passed to the log start first, its holes there counted as expired, as the session
      // already counts them (expired) and a step's commit would pass them.
      // The ranges it passes are audited as a step's are: a later rebuild passes them too.
      const passed = passExpired(before, logStart);
      const absorbed = this.passedNoRecords(partition, passed).filter((r) => !isHandled(passed, r.to));
      const next = absorbNoRecordOffsets(passed, this.noRecords.get(partition) ?? []);
      const gap = expiredGap(before, logStart);
      states.set(partition, next);
      noRecords.push(...absorbed);
      if (gap > 0n) expired.push({ partition, total: Number(next.expired), unrecorded: Number(gap), logStart });
    }
    await this.hold();
    if (expired.length > 0 || noRecords.length > 0) {
      // Before its audit entries, as a step checks before its publish: a DLQ created again since the open gets no entry of the log read.
      await checkSameLog(await this.adminClient(), this.consumer.dlq.name, this.logRead);
      await audit(expired, noRecords, states);
    }
    await this.commit({ states, expired });
  }

  /**
   * What the session's view of the DLQ depends on besides its ends: the log starts and the
   * replay group's handled state at open. Two sessions of one handled version list the same
   * unhandled records below the lower of their ends, so a count made in one can be carried
   * on in the other from where it stopped.
   */
  get handledVersion(): string {
    const states = [...this.ends.keys()]
      .sort((a, b) => a - b)
      .map((p) => {
        const state = this.states.get(p);
        return `${p}:${this.logStarts.get(p) ?? 0n}@${state ? `${state.committed}${encodeHandled(state)}` : ''}`;
      })
      .join(' ');
    // And the topic's id where the session read it: a DLQ created again with records of the same marks and the same
    // handled state (nothing handled in either) is another log, whose records a count of the old one must not carry.
    return this.topicId === undefined ? states : `${this.topicId} ${states}`;
  }

  /**
   * The unhandled records between the live starts and the ends, from offsets and the handled
   * state alone (as the monitor counts them), without reading any: offsets that hold no
   * record (transaction markers) count until a replay or discard passes them.
   */
  get backlog(): number {
    let unhandled = 0;
    for (const [partition, end] of this.ends) {
      unhandled += partitionBacklog(this.states.get(partition) ?? decodeHandled(0n, null), this.logStarts.get(partition) ?? 0n, end).unhandled;
    }
    return unhandled;
  }

  /**
   * `keep` sees every unhandled record as it is read and says which to hold in `records`
   * (all by default): a caller that needs a page, a count or a bounded selection keeps
   * only that, so the session's memory does not grow with the DLQ. `readers` gives the read
   * its member of the reader group: by default one of its own, left when the read ends.
   */
  static async open(kafka: Kafka, consumer: ConsumerModel, timeoutMs = 60_000, keep: Keep = () => true, scope: ReadScope = {}, readers: DlqReaders = memberPerRead(kafka)): Promise<DlqSession> {
    const topic = consumer.dlq.name;
    const admin = kafka.admin();
    await admin.connect();
    let offsets: { partition: number; low: string; high: string }[];
    let ends: Map<number, bigint>;
    let commits: Awaited<ReturnType<typeof groupCommits>>;
    let topicId: string | undefined;
    try {
      // The offsets first: a broker that cannot be reached is said after one round of retries, not two.
      offsets = await retryingRetriable(() => admin.fetchTopicOffsets(topic));
      // An id that cannot be read leaves the session as it is without ids (checked by its offsets alone); once read,
      // every check reads it. A topic created again between the two reads starts below the ends read: the offsets tell.
      topicId = await topicIdOf(admin, topic).catch(() => undefined);
      ends = new Map(offsets.map((p) => [p.partition, BigInt(p.high)]));
      commits = await groupCommits(admin, consumer);
    } finally {
      await admin.disconnect();
    }
    const logStarts = new Map(offsets.map((p) => [p.partition, BigInt(p.low)]));
    const readMarks = async (ranges: ReadonlyMap<number, { from: bigint; to: bigint }>) => {
      const marks = new Map<number, Map<bigint, string>>();
      if (ranges.size === 0) return marks;
      // Every record read counts as handled (the state starts past the range): only the marks are wanted.
      const past = new Map([...ranges].map(([p, r]) => [p, emptyHandled(r.to + 1n)]));
      const from = new Map([...ranges].map(([p, r]) => [p, r.from]));
      const until = new Map([...ranges].map(([p, r]) => [p, r.to + 1n]));
      const witness = (partition: number, offset: bigint, mark: string) => {
        const known = marks.get(partition) ?? new Map<bigint, string>();
        marks.set(partition, known.set(offset, mark));
      };
      await readUnhandled(kafka, readers, consumer, past, from, until, timeoutMs, () => false, { witness });
      return marks;
    };
    const { states, restored } = await openingStates(kafka, consumer, commits, { ends, starts: logStarts, ...(topicId === undefined ? {} : { topicId }) }, timeoutMs, readMarks);
    const expired = offsets
      .map((p) => ({ partition: p.partition, state: states.get(p.partition)!, logStart: BigInt(p.low) }))
      .map(({ partition, state, logStart }) => ({ partition, total: partitionBacklog(state, logStart, logStart).expired, unrecorded: Number(expiredGap(state, logStart)), logStart }))
      .filter((e) => e.total > 0)
      .sort((a, b) => a.partition - b.partition);
    // Where reading starts: past what is handled and past what retention deleted.
    const live = new Map([...states].map(([partition, state]) => [partition, passExpired(state, logStarts.get(partition) ?? 0n)]));
    const starts = new Map<number, bigint>();
    for (const [partition, state] of live) {
      const from = scope.from ? scope.from(partition) : state.committed;
      if (from === undefined) continue;
      const start = from > state.committed ? from : state.committed;
      if (start < ends.get(partition)!) starts.set(partition, start);
    }
    const read = starts.size === 0 ? { records: [], noRecords: new Map() } : await readUnhandled(kafka, readers, consumer, live, starts, ends, timeoutMs, keep, scope);
    if (topicId !== undefined) await sameIdAfterOpen(kafka, topic, topicId);
    return new DlqSession(kafka, consumer, read.records, expired, states, logStarts, timeoutMs, read.noRecords, ends, restored, topicId);
  }

  /**
   * The commit that records these records as handled, computed and checked against
   * Kafka's metadata limit before anything is published: a record whose handling cannot
   * be recorded is never replayed. It also passes any gap retention left below the log
   * start, and every offset without a record (a transaction marker, an aborted record) next
   * to handled ones: no consumer ever sees such an offset, so nothing could ever handle it.
   */
  prepare(records: readonly DlqRecord[]): PreparedCommit {
    return this.prepareOver(this.states, records);
  }

  /**
   * How many of these parts, each committed after the one before as inSteps commits them,
   * can be recorded: the state after every commit is checked to fit, not only the last one
   * (records committed in another order than the log's leave holes between commits).
   */
  recordableParts(parts: readonly (readonly DlqRecord[])[]): number {
    const states = new Map(this.states);
    for (const [i, part] of parts.entries()) {
      try {
        for (const [partition, state] of this.prepareOver(states, part).states) states.set(partition, state);
      } catch (error) {
        if (error instanceof DlqError) return i;
        throw error;
      }
    }
    return parts.length;
  }

  private prepareOver(committed: ReadonlyMap<number, HandledState>, records: readonly DlqRecord[]): PreparedCommit {
    const byPartition = new Map<number, bigint[]>();
    for (const r of records) {
      const list = byPartition.get(r.partition);
      if (list) list.push(r.offset);
      else byPartition.set(r.partition, [r.offset]);
    }
    for (const partition of this.noRecords.keys()) if (!byPartition.has(partition)) byPartition.set(partition, []);
    const states = new Map<number, HandledState>();
    const expired: ExpiredRecords[] = [];
    const noRecords: NoRecordsPassed[] = [];
    for (const [partition, offsets] of byPartition) {
      const logStart = this.logStarts.get(partition) ?? 0n;
      const before = committed.get(partition) ?? decodeHandled(0n, null);
      const gap = expiredGap(before, logStart);
      const marked = markHandled(passExpired(before, logStart), offsets);
      const next = absorbNoRecordOffsets(marked, this.noRecords.get(partition) ?? []);
      // A partition with no record of this step joins the commit only when markers move its state.
      if (offsets.length === 0 && keepsHandled(next, before)) continue;
      checkFits(partition, next);
      states.set(partition, next);
      // Only those not passed before: an earlier step's audit named those.
      noRecords.push(...this.passedNoRecords(partition, marked).filter((r) => !isHandled(before, r.to)));
      if (gap > 0n) expired.push({ partition, total: Number(next.expired), unrecorded: Number(gap), logStart });
    }
    return { states, expired, noRecords };
  }

  /** The ranges holding no record a commit of this state passes (borderedNoRecords), each with its border record's mark when read. */
  private passedNoRecords(partition: number, state: HandledState): NoRecordsPassed[] {
    return borderedNoRecords(state, this.noRecords.get(partition) ?? []).map((r) => {
      const mark = this.markOf(partition, r.border);
      return { partition, from: r.from, to: r.to, border: r.border, ...(mark === undefined ? {} : { mark }) };
    });
  }

  private marks: Map<string, string> | undefined;
  private noRecordEdges: Map<string, HandledRange[]> | undefined;

  /**
   * The ranges holding no record that the read found right before or after this offset:
   * what a step's commit may pass with the record there, and its audit name (`no-records`).
   */
  noRecordsNextTo(partition: number, offset: bigint): NoRecordsPassed[] {
    if (this.noRecordEdges === undefined) {
      const edges = new Map<string, HandledRange[]>();
      const add = (key: string, r: HandledRange) => edges.set(key, [...(edges.get(key) ?? []), r]);
      for (const [p, ranges] of this.noRecords) {
        for (const r of ranges) {
          add(`${p}:${r.from - 1n}`, r);
          add(`${p}:${r.to + 1n}`, r);
        }
      }
      this.noRecordEdges = edges;
    }
    const mark = this.markOf(partition, offset);
    return (this.noRecordEdges.get(`${partition}:${offset}`) ?? []).map((r) => ({ partition, from: r.from, to: r.to, border: offset, ...(mark === undefined ? {} : { mark }) }));
  }

  /** The mark of the record the session read at this offset, if it read one. */
  private markOf(partition: number, offset: bigint): string | undefined {
    if (this.marks === undefined) {
      this.marks = new Map();
      for (const r of this.records) if (r.mark !== undefined) this.marks.set(`${r.partition}:${r.offset}`, r.mark);
    }
    return this.marks.get(`${partition}:${offset}`);
  }

  /**
   * Takes the lease for a replay or discard: joins the replay group as its committing
   * member, and refuses when another krt command holds it (a member already there, or a
   * member that joined at the same moment and leads the group).
   */
  async hold(): Promise<void> {
    if (this.closed) throw new DlqError('this session is closed; open a new one to replay or discard');
    if (this.committer) return this.checkHeld();
    const group = this.consumer.groups.replay;
    const admin = await this.adminClient();
    const [described] = (await retryingRetriable(() => admin.describeGroups([group]))).groups;
    const others = (described?.members ?? []).map((m) => `${m.clientId} on ${m.clientHost}`);
    if (others.length > 0) throw this.busy(others.join(', '));
    await this.member();
    if (!this.leading) {
      await this.release();
      throw this.busy('a member that joined at the same moment');
    }
  }

  /** Gives the lease back: leaves the replay group, so the next command need not wait for a session timeout. */
  async release(): Promise<void> {
    const client = this.committer;
    const joining = this.joining;
    this.committer = undefined;
    this.commitConfirmed = undefined;
    this.joining = undefined;
    this.leading = false;
    // After its join: a member that gave up joining (the join timed out) and left now would join after all, for good.
    if (client) await disconnectAfterRun(client, joining);
  }

  /**
   * Refuses when the DLQ topic is no longer the log the session read (checkSameLog): before
   * any audit entry the session writes, as before a step's publish and commit. An entry
   * naming the log read (its id) written once another log is the topic's is stamped after
   * that log's own entries, and the fold leaves out every entry written no later than one
   * naming another id: those of the new topic written without an id too.
   */
  async checkLog(): Promise<void> {
    await checkSameLog(await this.adminClient(), this.consumer.dlq.name, this.logRead);
  }

  /**
   * The records of `records` that are still unhandled in the replay group's committed state
   * now: another session may have replayed or discarded some since this one read them. The
   * session's own view is brought up to date with what it finds. Called under the lease.
   */
  async stillUnhandled(records: readonly DlqRecord[]): Promise<DlqRecord[]> {
    this.checkHeld();
    const partitions = [...new Set(records.map((r) => r.partition))];
    // Before anything of the step is published: a topic made again holds none of these records.
    await checkSameLog(await this.adminClient(), this.consumer.dlq.name, this.logRead);
    const stored = await committedStates(await this.adminClient(), this.consumer, partitions);
    for (const [partition, now] of stored) {
      const known = this.states.get(partition);
      this.states.set(partition, known && !keepsHandled(known, now) ? unionHandled(known, now) : now);
    }
    return records.filter((r) => !isHandled(this.states.get(r.partition)!, r.offset));
  }

  /**
   * Commits a prepared step; the commit moves over every contiguous handled record. What
   * the group holds now is read first: anything handled there that this session did not
   * know of (a commit it did not make) is kept, never overwritten.
   */
  async commit(prepared: PreparedCommit): Promise<void> {
    if (this.closed) throw new DlqError('this session is closed; open a new one to commit');
    const topic = this.consumer.dlq.name;
    await this.member();
    // The member's own commit: close() or release() may let the member go while the states are read.
    const commit = this.commitConfirmed;
    // Partitions restored from the audit log and not yet written join the first commit.
    const states = new Map([...[...this.unwritten].map((p) => [p, this.states.get(p)!] as const), ...prepared.states]);
    // After the step's publish and audit: the handled state is of the log the session read, and goes to no other.
    await checkSameLog(await this.adminClient(), topic, this.logRead);
    const stored = await committedStates(await this.adminClient(), this.consumer, [...states.keys()]);
    const next = new Map<number, HandledState>();
    for (const [partition, state] of states) {
      const now = stored.get(partition)!;
      const kept = keepsHandled(now, state) ? state : unionHandled(now, state);
      checkFits(partition, kept);
      next.set(partition, kept);
    }
    if (commit === undefined || this.closed || this.commitConfirmed !== commit) {
      throw new DlqError('the session closed while this step was being recorded: its records are not recorded as handled, and stay in the DLQ (run again, the command sends them again)');
    }
    await commit([...next].map(([partition, state]) => ({ topic, partition, offset: state.committed.toString(), metadata: encodeHandled(state) })));
    for (const [partition, state] of next) {
      this.states.set(partition, state);
      this.unwritten.delete(partition);
    }
  }

  private checkHeld(): void {
    if (this.committer && !this.leading) throw this.busy('a member that took over the replay group');
  }

  private busy(who: string): DlqError {
    return new DlqError(
      `another krt dlq command is replaying or discarding records of ${this.consumer.name} (${who} in group ${this.consumer.groups.replay}); nothing was published. Wait for it to end, then run this one again`,
    );
  }

  private async adminClient(): Promise<KafkaAdmin> {
    // After close() an admin made here would be left connected, holding the process (attack 40).
    if (this.closed) throw new DlqError('this session is closed: what it was doing is not recorded as done; open a new one');
    if (!this.admin) {
      this.admin = this.kafka.admin();
      await this.admin.connect();
    }
    return this.admin;
  }

  /** The replay group's member that commits: joined at the first commit, its partitions paused before any fetch. */
  private async member(): Promise<Consumer> {
    if (this.committer) return this.committer;
    const topic = this.consumer.dlq.name;
    // It never fetches (its partitions stay paused), and kafkajs's disconnect waits out the idle
    // fetch's wait before it leaves: at its default 5 s, Ctrl-C's leave missed its deadline.
    const client = this.kafka.consumer({ groupId: this.consumer.groups.replay, retry: { retries: 5 }, maxWaitTimeInMs: COMMITTER_MAX_WAIT_MS });
    this.committer = client;
    this.commitConfirmed = confirmedCommits(client);
    await client.connect();
    await client.subscribe({ topics: [topic], fromBeginning: true });
    let timer: NodeJS.Timeout | undefined;
    // Cleared however the join ends: a run() refused leaves no timer to hold the process for commitTimeoutMs.
    const joined = new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new DlqError(`could not join the replay group ${this.consumer.groups.replay} within ${this.commitTimeoutMs / 1000}s`)), this.commitTimeoutMs);
      client.on(client.events.GROUP_JOIN, (event) => {
        // Before the first fetch: a member that never fetches never commits a reset offset.
        client.pause([{ topic }]);
        // Every rejoin says again who leads: a member that lost the lead has lost the lease.
        if (client === this.committer) this.leading = (event as { payload?: { isLeader?: boolean } } | undefined)?.payload?.isLeader !== false;
        clearTimeout(timer);
        resolve();
      });
      // A join the broker refuses for good (the principal may not use the group) crashes the
      // runner after run() resolved: said at once, not after the timeout.
      onFatalCrash(client, reject, `the replay group ${this.consumer.groups.replay}'s member`);
      this.joining = client.run({ autoCommit: false, eachBatch: async () => {} });
      this.joining.catch(reject);
      client.pause([{ topic }]);
    }).finally(() => clearTimeout(timer));
    try {
      await joined;
    } catch (error) {
      // A member that never joined is not kept: the next step (the console's next action) joins afresh.
      if (this.committer === client) await this.release().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /** Leaves the replay group at once, so the next command does not wait for a session timeout. */
  async close(): Promise<void> {
    this.closed = true;
    const admin = this.admin;
    this.admin = undefined;
    await Promise.all([this.release(), admin?.disconnect()]);
  }
}

const isNothingHandled = (state: HandledState) => state.committed === 0n && state.runs.length === 0 && state.expired === 0n && !state.far?.length;

function checkFits(partition: number, state: HandledState): void {
  const bytes = Buffer.byteLength(encodeHandled(state));
  if (bytes > MAX_HANDLED_METADATA_BYTES) {
    throw new DlqError(
      `partition ${partition}'s handled records would be too scattered to record in the replay group's commit (${bytes} bytes; Kafka keeps ${MAX_HANDLED_METADATA_BYTES}); nothing of this step was published`,
    );
  }
}

/** How often, at first, a reader still waiting checks whether retention emptied its partitions. */
const FIRST_LOG_START_CHECK_MS = 50;
const MAX_LOG_START_CHECK_MS = 2_000;

/**
 * The unhandled records from each partition's start (its live start unless the scope says
 * later) to the end read at open, by a member of the reader group, listed once each however
 * often a rejoin redelivers it (each partition is read in offset order, so once past an
 * offset a partition never lists it again: memory does not grow with what was read). A
 * partition is read to its end when the reader's position reaches the end offset: a fetch
 * reports the offsets it covered, transaction markers and aborted records included
 * (kafkajs delivers none of them as messages), and a partition that retention emptied
 * below the end holds nothing more to read.
 *
 * The member may have served reads before this one (the console keeps one between pages):
 * a batch it fetched before this read's seek is passed over, never taken as read at the
 * position this read starts from.
 */
async function readUnhandled(
  kafka: Kafka,
  readers: DlqReaders,
  consumer: ConsumerModel,
  live: ReadonlyMap<number, HandledState>,
  starts: ReadonlyMap<number, bigint>,
  ends: ReadonlyMap<number, bigint>,
  timeoutMs: number,
  keep: Keep,
  scope: ReadScope,
): Promise<{ records: DlqRecord[]; noRecords: Map<number, HandledRange[]> }> {
  const topic = consumer.dlq.name;
  const found: DlqRecord[] = [];
  // The last offset listed in each partition: a redelivered record is never listed twice.
  const listed = new Map<number, bigint>();
  const noRecords = new Map<number, HandledRange[]>();
  // The next offset to read in each partition: where a rejoin resumes.
  const positions = new Map(starts);
  const waiting = new Set(starts.keys());
  const admin = kafka.admin();
  let adminConnected: Promise<void> = Promise.resolve();
  const member = readers.take(consumer);
  let checkTimer: NodeJS.Timeout | undefined;
  // Cleared in the finally however the read ends: a fetch or a connect refused leaves no timer to hold the process for timeoutMs.
  let stallTimer: NodeJS.Timeout | undefined;
  /** Set once the read ended: a batch or a log-start check still in hand then arms no timer again. */
  let ended = false;
  try {
    await new Promise<void>((resolve, reject) => {
      // A read stalls, it does not merely take long: a DLQ of millions, or a reader that waits for a
      // slow pipe, keeps reading as long as each window of timeoutMs moves a position.
      const stalled = () => {
        const at = [...waiting].map((p) => `partition ${p} at offset ${positions.get(p)} of ${ends.get(p)}`).join(', ');
        reject(new DlqError(`could not read ${topic} any further for ${timeoutMs / 1000}s (${at}); a transaction still open on the DLQ holds reading back until it ends`));
      };
      stallTimer = setTimeout(stalled, timeoutMs);
      const progressed = () => {
        clearTimeout(stallTimer);
        if (!ended) stallTimer = setTimeout(stalled, timeoutMs);
      };
      const done = (partition: number) => {
        if (!waiting.delete(partition)) return;
        member.stop(partition);
        if (waiting.size === 0) {
          clearTimeout(stallTimer);
          resolve();
        }
      };
      // Offsets [from, to] were covered by a fetch; those among them without a message hold no record.
      const covered = (partition: number, from: bigint, to: bigint, offsets: readonly bigint[]) => {
        const end = ends.get(partition) ?? 0n;
        const position = positions.get(partition) ?? 0n;
        // A fetch that starts past the position skipped what retention deleted: not markers.
        const first = from < position ? position : from;
        let expected = first;
        const holes = noRecords.get(partition) ?? [];
        const hole = (a: bigint, b: bigint) => {
          const last = b < end ? b : end - 1n;
          if (a <= last) holes.push({ from: a, to: last });
        };
        for (const o of offsets) {
          if (o < first) continue;
          if (o > expected) hole(expected, o - 1n);
          expected = o + 1n;
        }
        if (to >= expected) hole(expected, to);
        if (holes.length > 0) noRecords.set(partition, holes);
        if (to + 1n > position) {
          positions.set(partition, to + 1n);
          progressed();
        }
        if (to + 1n >= end) done(partition);
      };
      const readFromPositions = () => member.readFrom(new Map([...waiting].map((p) => [p, positions.get(p)!])));
      // Retention may empty a partition after the end offsets were read: no fetch then reports anything.
      // Or pass the position, leaving only offsets without records: reading goes on from the log start,
      // where a fetch of those offsets goes on from the position (markers past it are passed over).
      let checkEvery = FIRST_LOG_START_CHECK_MS;
      const checkLogStarts = async () => {
        try {
          let passed = false;
          for (const p of await admin.fetchTopicOffsets(topic)) {
            if (!waiting.has(p.partition)) continue;
            const logStart = BigInt(p.low);
            if (logStart >= (ends.get(p.partition) ?? 0n)) done(p.partition);
            else if (logStart > positions.get(p.partition)!) {
              positions.set(p.partition, logStart);
              passed = true;
            }
          }
          if (passed && !ended) {
            progressed();
            readFromPositions();
          }
        } catch {
          // The next check, or the fetch, tells.
        }
        checkEvery = Math.min(MAX_LOG_START_CHECK_MS, checkEvery * 2);
        if (waiting.size > 0 && !ended) checkTimer = setTimeout(() => void checkLogStarts(), checkEvery);
      };
      adminConnected = admin.connect();
      adminConnected.then(() => {
        if (!ended) checkTimer = setTimeout(() => void checkLogStarts(), checkEvery);
      }, reject);
      member.attach({
        // The first join, or a rejoin (the coordinator moved, a member came or went): reading resumes where it got to.
        joined: readFromPositions,
        // Markers alone say nothing of offsets before them: taken only when they go on from the position
        // (one fetched before a seek could lie past it, and would pass records never read).
        markers: (partition, first, last) => {
          if (waiting.has(partition) && first <= positions.get(partition)!) covered(partition, first, last, []);
        },
        failed: reject,
        batch: async (b, stale) => {
          const partition = b.partition;
          if (stale || !waiting.has(partition)) return;
          const end = ends.get(partition) ?? 0n;
          const state = live.get(partition)!;
          const offsets: bigint[] = [];
          // Set when the caller has enough of this partition before the batch ends: a fetch holds up to a
          // megabyte of each partition, a page needs fifty records, and the rest is not decoded for nothing.
          let stoppedAt: bigint | undefined;
          for (const message of b.messages) {
            const offset = BigInt(message.offset);
            if (offset >= end) break;
            offsets.push(offset);
            if (scope.witness && offset >= (starts.get(partition) ?? 0n)) scope.witness(partition, offset, recordMark(message));
            // Handled, or already read (a rejoin redelivers from the last fetch): listed once.
            const last = listed.get(partition);
            if (isHandled(state, offset) || offset < (positions.get(partition) ?? 0n) || (last !== undefined && offset <= last)) continue;
            const headers = (message.headers ?? {}) as RawHeaders;
            const record: DlqRecord = {
              id: `${partition}:${offset}`,
              partition,
              offset,
              timestamp: Number(message.timestamp),
              key: message.key,
              value: message.value,
              headers,
              decoded: decodeDlqHeaders(headers),
              replayCount: replayCountOf(headers),
              mark: recordMark(message),
            };
            // Seen once, kept or not: keep decides what the session holds, never twice.
            listed.set(partition, offset);
            if (keep(record)) found.push(scope.previewBytes === undefined ? record : preview(record, scope.previewBytes));
            if (scope.enough?.(partition, offset + 1n)) {
              stoppedAt = offset;
              break;
            }
          }
          const lastMessage = b.messages.length > 0 ? BigInt(b.messages[b.messages.length - 1]!.offset) : undefined;
          const first = b.firstOffset?.() ?? (offsets[0] !== undefined ? offsets[0].toString() : null);
          const last = BigInt(b.lastOffset?.() ?? String(lastMessage ?? -1n));
          const to = stoppedAt ?? (lastMessage !== undefined && lastMessage > last ? lastMessage : last);
          if (first !== null) covered(partition, BigInt(first), to, offsets);
          if (stoppedAt !== undefined) done(partition);
          if (scope.enough) for (const p of [...waiting]) if (scope.enough(p, positions.get(p)!)) done(p);
          if (scope.drain && waiting.size > 0) {
            // Waiting for the writer is not a stalled read.
            clearTimeout(stallTimer);
            await scope.drain();
            progressed();
          }
        },
      });
    });
  } finally {
    ended = true;
    clearTimeout(checkTimer);
    clearTimeout(stallTimer);
    member.detach();
    // A connect still under way would end connected after a disconnect now, and keep the process alive.
    await Promise.all([readers.give(member), adminConnected.then(() => admin.disconnect()).catch(() => undefined)]);
  }
  const records = found.sort((a, b) => a.partition - b.partition || (a.offset < b.offset ? -1 : 1));
  return { records, noRecords };
}
