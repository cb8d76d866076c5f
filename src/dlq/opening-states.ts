import type { Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import type { HandledState } from '../runtime/dlq-handled';
import { handledFromAuditLogSliced, offsetsToCheck } from '../runtime/dlq-handled-from-audit';
import { runSliced } from '../runtime/sliced-work';
import { dlqReaderGroupName } from '../naming';
import { readAuditLog } from './audit-log';
import { statesOf } from './group-commits';
import type { GroupCommits } from './group-commits';

/** Reads the marks (recordMark) of the DLQ records between `from` and `to` (inclusive) of each partition. */
export type ReadMarks = (ranges: ReadonlyMap<number, { from: bigint; to: bigint }>) => Promise<Map<number, Map<bigint, string>>>;

/**
 * The handled state a session opens on, per partition: the replay group's commit, or, for a
 * partition that has none, the audit log's account of its replays and discards
 * (handledFromAuditLog). Kafka deletes an empty group's offsets after
 * `offsets.retention.minutes`, and an admin may delete one partition's alone
 * (deleteConsumerGroupOffsets): read as "nothing handled", every record handled before would
 * be replayed again. `restored` names the partitions taken from the audit log: the first
 * replay or discard writes them back (restoreCommits), every one of them, those never handled
 * as offset 0, so that from then on a partition without a commit is one whose commit was
 * deleted, and the audit log is read only then (a group of an earlier release, with commits
 * only where something was handled, or a partition added to the DLQ, reads it until then).
 *
 * An entry the release writes names its record by its mark; the records the entries name in
 * the partitions rebuilt are read first, and an entry whose record is not the one this log holds
 * there (another mark, or written after the entry: the DLQ topic was deleted and created again,
 * the audit log kept) is left out, with every entry written before it (entriesOfAnotherLog).
 * Where the topic's id is known, an entry naming another id is of another log outright.
 */
export async function openingStates(
  kafka: Kafka,
  consumer: ConsumerModel,
  commits: GroupCommits,
  log: { ends: ReadonlyMap<number, bigint>; starts: ReadonlyMap<number, bigint>; topicId?: string },
  timeoutMs: number,
  readMarks: ReadMarks,
): Promise<{ states: Map<number, HandledState>; restored: ReadonlySet<number> }> {
  const partitions = [...log.ends.keys()];
  const states = statesOf(commits, partitions);
  const missing = partitions.filter((p) => !commits.has(p));
  if (missing.length === 0) return { states, restored: new Set() };
  const entries = await readAuditLog(kafka, consumer, dlqReaderGroupName(consumer.groups.replay), Number.MAX_SAFE_INTEGER, timeoutMs);
  // Sliced: the console serves other pages while a session opens on a year of audit log.
  const ranges = await runSliced(offsetsToCheck(entries, consumer.dlq.name, missing, log.ends, log.starts));
  const marks = await readMarks(ranges);
  // readMarks reads each range to its end (or fails): an offset there without a mark holds no record.
  const covered = new Map([...ranges].map(([partition, r]) => [partition, { from: r.from, to: r.to + 1n }]));
  for (const [partition, state] of await runSliced(handledFromAuditLogSliced(entries, consumer.dlq.name, missing, log.ends, { starts: log.starts, marks, covered, ...(log.topicId === undefined ? {} : { topicId: log.topicId }) }))) states.set(partition, state);
  return { states, restored: new Set(missing) };
}
