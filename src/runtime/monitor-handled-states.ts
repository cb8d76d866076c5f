import type { ConsumerDescriptor } from './descriptor';
import { committedByPartition, decodeHandled, emptyHandled } from './dlq-handled';
import type { HandledState } from './dlq-handled';
import { handledFromAuditLogSliced } from './dlq-handled-from-audit';
import { runSliced } from './sliced-work';
import { describeError } from './describe-error';
import { KrtError } from './krt-error';
import { createMarkCheck } from './monitor-audit-marks';
import { createAuditTail } from './monitor-audit-tail';
import { createTopicIdRead } from './monitor-topic-id';
import type { MonitorPort } from './monitor-port';

type PartitionEnds = readonly { partition: number; low: string; high: string }[];
type Commits = readonly { partition: number; offset: string; metadata: string | null }[];

/**
 * The handled state of each DLQ partition: the replay group's commit, or, for a partition
 * with none, what the audit log says was replayed, discarded or passed as expired. Kafka
 * deletes an idle group's offsets after `offsets.retention.minutes` (7 days by default)
 * while the DLQ keeps its records 28 days: read as "nothing handled", every record handled
 * before would count as unhandled and the DLQ alerts would page on it. A partition never
 * handled has no entry in the audit log, so it reads as nothing handled either way.
 */
export function createHandledStates(consumer: ConsumerDescriptor, port: MonitorPort, onError: (error: unknown) => void) {
  const auditTopic = consumer.dlqAuditTopic;
  const dlqEnds = async () => new Map((await port.endOffsets(consumer.dlqTopic)).map((e) => [e.partition, BigInt(e.high)]));
  const tail = auditTopic !== undefined && port.readFrom ? createAuditTail(port.readFrom.bind(port), auditTopic, consumer.dlqTopic, dlqEnds) : undefined;
  const markCheck = createMarkCheck(port, consumer.dlqTopic);
  let toldCannotRead = false;
  const dlqTopicId = createTopicIdRead(consumer, port, onError);
  // The fold of a large log is seconds of work (sliced: the event loop runs between): made again only when what it
  // reads changed (an entry, the partitions without a commit, a log start), or a DLQ end fell
  // (the topic created again). It is given no ends: the tail dropped every entry past the
  // DLQ's end read after its audit read, and the ends this poll read before it would leave
  // out an entry about a record written in between.
  let folded: { key: string; highs: ReadonlyMap<number, bigint>; states: Map<number, HandledState> } | undefined;

  return async function handledStates(ends: PartitionEnds, committed: Commits, signal?: AbortSignal): Promise<Map<number, HandledState>> {
    const commits = committedByPartition(committed);
    const states = new Map<number, HandledState>();
    const uncommitted: number[] = [];
    for (const { partition } of ends) {
      const commit = commits.get(partition);
      if (commit) states.set(partition, decodeHandled(BigInt(commit.offset), commit.metadata));
      else uncommitted.push(partition);
    }
    if (uncommitted.length === 0) return states;
    if (tail === undefined) {
      if (!toldCannotRead) onError(new KrtError(`the monitor of ${consumer.name} cannot read its DLQ audit log (${auditTopic === undefined ? 'the router package was generated before it named the audit topic; run krt synth again' : 'its MonitorPort has no readFrom'}): a DLQ partition whose replay-group commits Kafka deleted counts the records handled before as unhandled`));
      toldCannotRead = true;
      for (const partition of uncommitted) states.set(partition, emptyHandled(0n));
      return states;
    }
    // The id first, right after the ends this poll read: a DLQ created again while the audit log and the records its
    // entries name are read (seconds) would give the new topic's id to the old topic's ends, every entry of the old
    // topic left out, its handled records counted unhandled and its log start as expired (a counter: raised for good).
    const topicId = await dlqTopicId();
    const entries = await tail.entries(signal).catch((error: unknown) => {
      if (signal?.aborted) throw error;
      throw new KrtError(`could not read ${auditTopic}, the audit log that tells what was handled in ${consumer.dlqTopic} partitions ${uncommitted.join(', ')} (the replay group has no commit there): ${describeError(error).message}`);
    });
    const highs = new Map(ends.map((e) => [e.partition, BigInt(e.high)]));
    // Log starts: an `expired` entry above today's names an earlier topic of the DLQ's name.
    const starts = new Map(ends.map((e) => [e.partition, BigInt(e.low)]));
    // The records the entries name, each entry's mark checked against the one there now: an
    // entry about a record of a DLQ deleted and created again is left out.
    const marks = await markCheck.marks(entries, uncommitted, highs, starts, signal).catch((error: unknown) => {
      if (signal?.aborted) throw error;
      throw new KrtError(`could not read the ${consumer.dlqTopic} records its audit log names, to tell them from those of a DLQ created again: ${describeError(error).message}`);
    });
    // The entries are known by the tail's generation and their count: a tail that started over may hold as many.
    const key = `${tail.generation}|${entries.length}|${uncommitted.join(',')}|${uncommitted.map((p) => starts.get(p)).join(',')}|${markCheck.version}|${topicId ?? ''}`;
    const fell = folded !== undefined && [...highs].some(([partition, high]) => high < (folded!.highs.get(partition) ?? 0n));
    if (folded === undefined || folded.key !== key || fell) folded = { key, highs, states: await runSliced(handledFromAuditLogSliced(entries, consumer.dlqTopic, uncommitted, undefined, { starts, ...(marks ?? {}), ...(topicId === undefined ? {} : { topicId }) }), signal) };
    for (const [partition, state] of folded.states) states.set(partition, state);
    return states;
  };
}
