import os from 'node:os';
import { compileFiles } from '../compile';
import type { kafkaFromEnv } from '../connection/kafka-connection';
import { kafkaReadingTopicIdsFromEnv } from '../connection/topic-ids';
import { bytesText, recordGroups, recordJson } from '../dlq/inspect';
import { recordsWaitingForTheirKey } from '../dlq/key-turn';
import { checkRecordable, discardRecords, replayPlan, replayRecords } from '../dlq/replay';
import { replayRoute, replayTarget } from '../dlq/replay-route';
import type { ReplayRoute } from '../dlq/replay-route';
import { groupsReading } from '../dlq/topic-groups';
import type { TopicReaders } from '../dlq/topic-groups';
import { isRecordId, selectRecords } from '../dlq/select';
import type { Selection } from '../dlq/select';
import { DlqError, DlqSession } from '../dlq/session';
import type { DlqRecord, ExpiredRecords } from '../dlq/session';
import type { ConsumerModel } from '../model/types';
import { DEFAULT_REPLAY_LIMIT, DLQ_FLAGS, DLQ_RECORD_ID_FORMAT, dlqReaderGroupName, REPLAY_ROUTES } from '../naming';
import type { ReplayRouteName } from '../naming';
import { discoverTopologyFiles } from '../load/load-topologies';
import { humanIo } from './human-io';
import { EXIT, writeLines } from './io';
import { LEAVE_DEADLINE_MS, leaveOnSignal } from './leave-on-signal';
import type { CliIo } from './io';
import { progressReporter } from './progress';
import { reportDiagnostics } from './report';
import { UsageError } from './topology-files';
import { systemClock } from '../runtime/clock';
import { settlesWithin } from '../runtime/settles-within';

/** Every consumer of the topologies of the working directory, or undefined after printing their problems. */
async function topologyConsumers(io: CliIo): Promise<readonly ConsumerModel[] | undefined> {
  const result = await compileFiles(discoverTopologyFiles(io.cwd), io.cwd);
  if (reportDiagnostics(io, result) || !result.model) return undefined;
  return result.model.topologies.flatMap((t) => t.consumers);
}

function named(consumers: readonly ConsumerModel[], name: string): ConsumerModel {
  const consumer = consumers.find((c) => c.name === name);
  if (!consumer) throw new UsageError(`no consumer '${name}' in topologies/; there are ${consumers.map((c) => c.name).join(', ')}`);
  return consumer;
}

/** The consumer of that name in the topologies of the working directory. */
export async function findConsumer(io: CliIo, name: string): Promise<ConsumerModel | undefined> {
  const consumers = await topologyConsumers(io);
  return consumers && named(consumers, name);
}

/** The groups of the topologies' other consumers that read this consumer's main topic. */
function knownReaders(consumers: readonly ConsumerModel[], consumer: ConsumerModel): string[] {
  return consumers.filter((c) => c !== consumer && c.mainTopic.name === consumer.mainTopic.name).map((c) => c.groups.main);
}

async function withSession(
  io: CliIo,
  name: string,
  work: (session: DlqSession, kafka: ReturnType<typeof kafkaFromEnv>, consumers: readonly ConsumerModel[], stop: AbortSignal) => Promise<number>,
): Promise<number> {
  const consumers = await topologyConsumers(io);
  if (!consumers) return EXIT.problems;
  const consumer = named(consumers, name);
  const kafka = kafkaReadingTopicIdsFromEnv(io.env ?? process.env, undefined, io.stderr);
  const session = await DlqSession.open(kafka, consumer);
  // Ctrl-C during a replay or discard: it ends at its next step boundary (what it began is published,
  // audited and committed) and says so; then its member of the replay group (the lease) leaves, or
  // the broker keeps it for a session timeout and refuses every replay of the consumer meanwhile.
  const stop = new AbortController();
  let worked: Promise<unknown> = Promise.resolve();
  const stopLeavingOnSignal = leaveOnSignal(async () => {
    io.stderr(
      `stopping after the part in hand (at most ${(LEAVE_DEADLINE_MS - LEAVE_MARGIN_MS) / 1000} s), then leaving ${consumer.groups.replay}; a part still unrecorded then, or at a second Ctrl-C (which ends at once), is published again by the next run\n`,
    );
    stop.abort();
    // The part in hand ends within most of the deadline; the lease is left either way, so no later command waits for a session timeout.
    await settlesWithin(systemClock, worked, LEAVE_DEADLINE_MS - LEAVE_MARGIN_MS);
    await session.close();
  });
  try {
    const working = work(session, kafka, consumers, stop.signal);
    worked = working;
    return await working;
  } finally {
    stopLeavingOnSignal();
    await session.close();
  }
}

/** What a command stopped by a signal keeps of its deadline to leave the replay group after the part in hand. */
const LEAVE_MARGIN_MS = 1_000;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * What a command stopped by a signal left undone, and how to go on, or nothing when it did
 * all. By the ids left: a rerun of the same --ids refuses the records now handled, and one of
 * --all or --error-class takes its limit again, records it never listed among them.
 */
function stoppedLine(unreached: readonly DlqRecord[]): string {
  if (unreached.length === 0) return '';
  return `stopped by a signal after the part in hand: ${plural(unreached.length, 'record')} left unhandled in the DLQ; to go on, run it again with --ids ${unreached.map((r) => r.id).join(',')}\n`;
}

/** One sentence on what retention deleted unhandled, or nothing when it deleted nothing. */
function expiredLine(expired: readonly ExpiredRecords[]): string {
  if (expired.length === 0) return '';
  const total = expired.reduce((n, e) => n + e.total, 0);
  const parts = expired.map((e) => `partition ${e.partition}: ${e.total}${e.unrecorded > 0 ? `, ${e.unrecorded} of them below log start ${e.logStart} not yet in the audit log` : ''}`);
  return `expired: retention deleted ${plural(total, 'unhandled record')} before anyone replayed or discarded them (${parts.join('; ')}); they are lost\n`;
}

/**
 * `krt dlq inspect`: prints each unhandled record as it is read (each partition in offset
 * order), then the count and the groups, tallied along the way: memory does not grow with
 * the DLQ. A pipe that fills holds reading back; a reader that leaves (`| head`) ends it.
 */
export async function dlqInspectCommand(given: CliIo, name: string, options: { json: boolean }): Promise<number> {
  const io = options.json ? given : humanIo(given);
  const consumers = await topologyConsumers(io);
  if (!consumers) return EXIT.problems;
  const consumer = named(consumers, name);
  return inspectDlq(io, kafkaReadingTopicIdsFromEnv(io.env ?? process.env, undefined, io.stderr), consumer, options);
}

/** What `krt dlq inspect` prints of one consumer's DLQ, to `io` as given (escaping is the caller's). */
export async function inspectDlq(io: CliIo, kafka: ReturnType<typeof kafkaFromEnv>, consumer: ConsumerModel, options: { json: boolean }): Promise<number> {
  const groups = recordGroups({ ids: false });
  let unhandled = 0;
  let first = true;
  // Written in batches of whole lines, so a pipe sees whole lines and the drain check runs per batch.
  let pending: string[] = [];
  // Printed once something is read, so a broker that refuses the session leaves stdout empty.
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    pending.unshift(
      options.json
        ? `{\n  "consumer": ${JSON.stringify(consumer.name)},\n  "dlqTopic": ${JSON.stringify(consumer.dlq.name)},\n  "records": [`
        : `${consumer.dlq.name} (consumer ${consumer.name}), unhandled records as read (id = partition:offset):\n`,
    );
  };
  const print = (r: DlqRecord) => {
    start();
    unhandled++;
    groups.add(r);
    if (options.json) {
      pending.push(`${first ? '' : ','}\n    ${JSON.stringify(recordJson(r), null, 2).replace(/\n/g, '\n    ')}`);
    } else {
      const j = recordJson(r);
      const replays = r.replayCount > 0 ? `  replayed=${r.replayCount}` : '';
      pending.push(`  ${j.id}  ${j.timestamp}  key=${bytesText(r.key)}  attempt=${j.attempt ?? '?'}${replays}${j.valueSchemaId === null ? '' : `  schema-id=${j.valueSchemaId}`}  ${j.errorClass ?? '?'}: ${j.errorMessage ?? ''}  from ${j.originalTopic ?? '?'}[${j.originalPartition ?? '?'}]@${j.originalOffset ?? '?'}\n`);
    }
    first = false;
    return false;
  };
  const flush = async () => {
    // JSON output is exact (a plain io): its pieces go out as one text.
    if (options.json) {
      if (pending.length > 0) io.stdout(pending.join(''));
    } else writeLines(io, pending);
    pending = [];
    await io.drain?.();
  };
  const session = await DlqSession.open(kafka, consumer, undefined, print, { drain: flush, enough: () => io.stdoutClosed?.() === true });
  // Leave the reader group before printing the rest: a reader that stops early (| head) leaves no member behind.
  await session.close();
  start();
  await flush();
  const { expired } = session;
  const tallied = groups.groups().map(({ ids: _ids, ...group }) => group);
  if (options.json) {
    const expiredTotal = expired.reduce((n, e) => n + e.total, 0);
    const indent = (value: unknown) => JSON.stringify(value, null, 2).replace(/\n/g, '\n  ');
    io.stdout(`${first ? '' : '\n  '}],\n  "unhandled": ${unhandled},\n  "expired": ${indent({ total: expiredTotal, partitions: expired.map((e) => ({ ...e, logStart: e.logStart.toString() })) })},\n  "groups": ${indent(tallied)}\n}\n`);
    return EXIT.ok;
  }
  // Lines of their own: humanIo escapes a new line inside one write as data.
  writeLines(io, [...(unhandled === 0 ? ['  (none)\n'] : []), '\n', `${consumer.dlq.name} (consumer ${consumer.name}): ${plural(unhandled, 'unhandled record')}\n`]);
  io.stdout(expiredLine(expired));
  if (unhandled === 0) return EXIT.ok;
  io.stdout('\nby error name (x-error-class) and original topic:\n');
  for (const g of tallied) {
    const back = g.replayedBefore > 0 ? `, ${g.replayedBefore} replayed before and back again` : '';
    io.stdout(`  ${g.errorClass}  from ${g.originalTopic}: ${g.count}, ${g.oldest} .. ${g.newest}${back}, e.g. "${g.example}"\n`);
  }
  return EXIT.ok;
}

export interface ReplayCommandOptions {
  readonly ids?: string;
  readonly errorClass?: string;
  readonly all?: boolean;
  readonly limit?: string;
  readonly rate: string;
  readonly dryRun: boolean;
  readonly by?: string;
  readonly to?: string;
  readonly yes?: boolean;
}

const ROUTE_NAMES: readonly string[] = Object.values(REPLAY_ROUTES);

function routeNameOf(value: string | undefined): ReplayRouteName {
  if (value === undefined) return REPLAY_ROUTES.firstTier;
  if (!ROUTE_NAMES.includes(value)) throw new UsageError(`${DLQ_FLAGS.to} takes ${ROUTE_NAMES.join(' or ')}, not '${value}'`);
  return value as ReplayRouteName;
}

function routeLine(consumer: ConsumerModel, route: ReplayRoute): string {
  return route.tier
    ? `through ${route.topic}, ${consumer.name}'s first retry tier, due at once: only its own group reads it`
    : `to ${route.topic}, the main topic: every group that reads it processes them again`;
}

function readersLine(consumer: ConsumerModel, readers: TopicReaders): string {
  const found = readers.groups.length > 0 ? `other groups reading ${consumer.mainTopic.name}: ${readers.groups.join(', ')}` : `no other group found reading ${consumer.mainTopic.name}`;
  const scope = readers.incomplete ? `the list may be incomplete: ${readers.incomplete}` : 'from topologies/ and the groups the replay principal may describe';
  return `${found} (${scope})\n`;
}

/** This consumer's own groups: never counted as others reading its main topic. */
function ownGroups(consumer: ConsumerModel): string[] {
  const { main, retry, replay, monitor } = consumer.groups;
  return [main, retry, replay, monitor, dlqReaderGroupName(replay)];
}

function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} takes a positive number, not '${value}'`);
  return n;
}

/**
 * The ids of `--ids`, checked before krt connects: a typo is a usage error (exit 2), and an
 * empty list would have acted on no record and said done.
 */
function recordIds(given: string): string[] {
  const ids = given.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw new UsageError(`--ids takes record ids, ${DLQ_RECORD_ID_FORMAT}, separated by commas; it was given none`);
  const bad = ids.filter((id) => !isRecordId(id));
  if (bad.length > 0) throw new UsageError(`record ids look like ${DLQ_RECORD_ID_FORMAT}; not ${bad.join(', ')}`);
  return ids;
}

function selectionOf(options: { ids?: string; errorClass?: string; all?: boolean; limit?: string }, defaultLimit?: number): Selection {
  const chosen = [options.ids !== undefined, options.errorClass !== undefined, Boolean(options.all)].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError('choose the records with exactly one of --ids, --error-class or --all');
  return {
    ids: options.ids === undefined ? undefined : recordIds(options.ids),
    errorClass: options.errorClass,
    all: options.all,
    limit: positive(options.limit, '--limit') ?? (options.ids ? undefined : defaultLimit),
  };
}

/** Replays at most this many records unless --limit says otherwise: replay is bounded. */
export { DEFAULT_REPLAY_LIMIT };

export async function dlqReplayCommand(given: CliIo, name: string, options: ReplayCommandOptions): Promise<number> {
  const io = humanIo(given);
  const selection = selectionOf(options, DEFAULT_REPLAY_LIMIT);
  const rate = positive(options.rate, '--rate')!;
  const routeName = routeNameOf(options.to);
  const by = options.by ?? io.env?.USER ?? os.userInfo().username;
  return withSession(io, name, async (session, kafka, consumers, stop) => {
    const { consumer } = session;
    const route = replayRoute(consumer, routeName);
    const chosen = selectRecords(session.records, selection);
    const targets = new Map(chosen.map((r) => [r, replayTarget(consumer, route, r)]));
    checkRecordable(session, chosen, replayPlan(consumer, { route, rate, by }));
    const waiting = new Map((route.tier ? await recordsWaitingForTheirKey(kafka, consumer, chosen) : []).map((w) => [w.record, w.reason]));
    const verb = options.dryRun ? 'would replay' : 'replaying';
    io.stdout(expiredLine(session.expired));
    io.stdout(`${verb} ${chosen.length} of ${session.records.length} unhandled records of ${consumer.dlq.name} ${routeLine(consumer, route)}, at most ${rate}/s\n`);
    for (const r of chosen) {
      const target = targets.get(r)!;
      const wait = waiting.has(r) ? `  (waits in the DLQ: ${waiting.get(r)})` : '';
      io.stdout(`  ${r.id} -> ${target.topic}[${target.partition ?? 'by key'}]  key=${bytesText(r.key)}  ${r.decoded.errorClass ?? '?'}: ${r.decoded.errorMessage ?? ''}${wait}\n`);
    }
    if (!route.tier) io.stdout(readersLine(consumer, await groupsReading(kafka, route.topic, ownGroups(consumer), knownReaders(consumers, consumer))));
    if (options.dryRun) {
      io.stdout('dry run: nothing was published or committed\n');
      return EXIT.ok;
    }
    if (!route.tier && !options.yes) {
      throw new DlqError(
        `${DLQ_FLAGS.to} ${REPLAY_ROUTES.mainTopic} makes every group that reads ${route.topic} process these records again; nothing was published. Run again with ${DLQ_FLAGS.yes} if they all should, or without ${DLQ_FLAGS.to} to replay to ${consumer.name} only`,
      );
    }
    const result = await replayRecords(kafka, session, chosen, { route, rate, by, onProgress: progressReporter(io, 'replayed'), signal: stop });
    io.stdout(`replayed ${plural(result.replayed, 'record')} to ${route.topic}; recorded in ${consumer.dlqAudit.name} as done by ${by}\n`);
    io.stdout(stoppedLine(result.unreached));
    if (result.waiting.length > 0) {
      io.stdout(
        `left ${plural(result.waiting.length, 'record')} in the DLQ, so as not to overtake records of their key: ${result.waiting.map((w) => `${w.record.id} (${w.reason})`).join('; ')}. Once those retries end, replay them with --ids ${result.waiting.map((w) => w.record.id).join(',')}, or now with ${DLQ_FLAGS.to} ${REPLAY_ROUTES.mainTopic}, where they queue behind them\n`,
      );
    }
    return EXIT.ok;
  });
}

export async function dlqDiscardCommand(given: CliIo, name: string, options: { ids?: string; reason?: string; by?: string }): Promise<number> {
  const io = humanIo(given);
  if (!options.ids) throw new UsageError('say which records to discard with --ids <partition>:<offset>,...');
  if (!options.reason?.trim()) throw new UsageError('a discard needs --reason "<why it cannot be saved>"');
  if (!options.by?.trim()) throw new UsageError('a discard needs --by "<who decided>"');
  const selection = selectionOf({ ids: options.ids });
  return withSession(io, name, async (session, kafka, _consumers, stop) => {
    const chosen = selectRecords(session.records, selection);
    const { handled: done, unreached } = await discardRecords(kafka, session, chosen, { reason: options.reason!, by: options.by! }, { signal: stop });
    io.stdout(`discarded ${done.length} record${done.length === 1 ? '' : 's'} of ${session.consumer.dlq.name} (${done.map((r) => r.id).join(', ')}); recorded in ${session.consumer.dlqAudit.name}: "${options.reason}" by ${options.by}\n`);
    io.stdout(stoppedLine(unreached));
    const accounted = new Set([...done, ...unreached]);
    const meanwhile = chosen.filter((r) => !accounted.has(r));
    if (meanwhile.length > 0) io.stdout(`${plural(meanwhile.length, 'record')} (${meanwhile.map((r) => r.id).join(', ')}) another command replayed or discarded meanwhile, left as it did\n`);
    return EXIT.ok;
  });
}
