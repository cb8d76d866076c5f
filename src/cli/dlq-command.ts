import os from 'node:os';
import { compileFiles } from '../compile';
import { kafkaFromEnv } from '../dlq/connection';
import { bytesText, groupRecords, recordJson } from '../dlq/inspect';
import { checkRecordable, discardRecords, replayRecords, replayTarget } from '../dlq/replay';
import { selectRecords } from '../dlq/select';
import type { Selection } from '../dlq/select';
import { DlqSession } from '../dlq/session';
import type { ExpiredRecords } from '../dlq/session';
import type { ConsumerModel } from '../model/types';
import { discoverTopologyFiles } from '../load/load-topologies';
import { humanIo } from './human-io';
import { EXIT } from './io';
import type { CliIo } from './io';
import { progressReporter } from './progress';
import { reportDiagnostics } from './report';
import { UsageError } from './topology-files';

/** The consumer of that name in the topologies of the working directory. */
export async function findConsumer(io: CliIo, name: string): Promise<ConsumerModel | undefined> {
  const result = await compileFiles(discoverTopologyFiles(io.cwd), io.cwd);
  if (reportDiagnostics(io, result) || !result.model) return undefined;
  const consumers = result.model.topologies.flatMap((t) => t.consumers);
  const consumer = consumers.find((c) => c.name === name);
  if (!consumer) throw new UsageError(`no consumer '${name}' in topologies/; there are ${consumers.map((c) => c.name).join(', ')}`);
  return consumer;
}

async function withSession(io: CliIo, name: string, work: (session: DlqSession, kafka: ReturnType<typeof kafkaFromEnv>) => Promise<number>): Promise<number> {
  const consumer = await findConsumer(io, name);
  if (!consumer) return EXIT.problems;
  const kafka = kafkaFromEnv(io.env ?? process.env);
  const session = await DlqSession.open(kafka, consumer);
  try {
    return await work(session, kafka);
  } finally {
    await session.close();
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One sentence on what retention deleted unhandled, or nothing when it deleted nothing. */
function expiredLine(expired: readonly ExpiredRecords[]): string {
  if (expired.length === 0) return '';
  const total = expired.reduce((n, e) => n + e.total, 0);
  const parts = expired.map((e) => `partition ${e.partition}: ${e.total}${e.unrecorded > 0 ? `, ${e.unrecorded} of them below log start ${e.logStart} not yet in the audit log` : ''}`);
  return `expired: retention deleted ${plural(total, 'unhandled record')} before anyone replayed or discarded them (${parts.join('; ')}); they are lost\n`;
}

export async function dlqInspectCommand(given: CliIo, name: string, options: { json: boolean }): Promise<number> {
  const io = options.json ? given : humanIo(given);
  return withSession(io, name, async (session) => {
    // Leave the replay group before printing: a reader that stops early (| head) leaves no member behind.
    await session.close();
    const { records, consumer, expired } = session;
    if (options.json) {
      const expiredTotal = expired.reduce((n, e) => n + e.total, 0);
      const report = { consumer: consumer.name, dlqTopic: consumer.dlq.name, unhandled: records.length, expired: { total: expiredTotal, partitions: expired.map((e) => ({ ...e, logStart: e.logStart.toString() })) }, groups: groupRecords(records), records: records.map(recordJson) };
      io.stdout(`${JSON.stringify(report, null, 2)}\n`);
      return EXIT.ok;
    }
    io.stdout(`${consumer.dlq.name} (consumer ${consumer.name}): ${plural(records.length, 'unhandled record')}\n`);
    io.stdout(expiredLine(expired));
    if (records.length === 0) return EXIT.ok;
    io.stdout('\nby error name (x-error-class) and original topic:\n');
    for (const g of groupRecords(records)) {
      const back = g.replayedBefore > 0 ? `, ${g.replayedBefore} replayed before and back again` : '';
      io.stdout(`  ${g.errorClass}  from ${g.originalTopic}: ${g.count}, ${g.oldest} .. ${g.newest}${back}, e.g. "${g.example}"\n`);
    }
    io.stdout('\nrecords (id = partition:offset):\n');
    for (const r of records) {
      const j = recordJson(r);
      const replays = r.replayCount > 0 ? `  replayed=${r.replayCount}` : '';
      io.stdout(`  ${j.id}  ${j.timestamp}  key=${bytesText(r.key)}  attempt=${j.attempt ?? '?'}${replays}  ${j.errorClass ?? '?'}: ${j.errorMessage ?? ''}  from ${j.originalTopic ?? '?'}[${j.originalPartition ?? '?'}]@${j.originalOffset ?? '?'}\n`);
    }
    return EXIT.ok;
  });
}

export interface ReplayCommandOptions {
  readonly ids?: string;
  readonly errorClass?: string;
  readonly all?: boolean;
  readonly limit?: string;
  readonly rate: string;
  readonly dryRun: boolean;
  readonly by?: string;
}

function positive(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} takes a positive number, not '${value}'`);
  return n;
}

function selectionOf(options: { ids?: string; errorClass?: string; all?: boolean; limit?: string }, defaultLimit?: number): Selection {
  const chosen = [options.ids !== undefined, options.errorClass !== undefined, Boolean(options.all)].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError('choose the records with exactly one of --ids, --error-class or --all');
  return {
    ids: options.ids?.split(',').map((s) => s.trim()).filter(Boolean),
    errorClass: options.errorClass,
    all: options.all,
    limit: positive(options.limit, '--limit') ?? (options.ids ? undefined : defaultLimit),
  };
}

/** Replays at most this many records unless --limit says otherwise: replay is bounded. */
export const DEFAULT_REPLAY_LIMIT = 100;

export async function dlqReplayCommand(given: CliIo, name: string, options: ReplayCommandOptions): Promise<number> {
  const io = humanIo(given);
  const selection = selectionOf(options, DEFAULT_REPLAY_LIMIT);
  const rate = positive(options.rate, '--rate')!;
  const by = options.by ?? io.env?.USER ?? os.userInfo().username;
  return withSession(io, name, async (session, kafka) => {
    const chosen = selectRecords(session.records, selection);
    checkRecordable(session, chosen);
    const verb = options.dryRun ? 'would replay' : 'replaying';
    io.stdout(expiredLine(session.expired));
    io.stdout(`${verb} ${chosen.length} of ${session.records.length} unhandled records of ${session.consumer.dlq.name}, at most ${rate}/s\n`);
    for (const r of chosen) {
      const target = replayTarget(session.consumer, r);
      io.stdout(`  ${r.id} -> ${target.topic}[${target.partition ?? 'by key'}]  key=${bytesText(r.key)}  ${r.decoded.errorClass ?? '?'}: ${r.decoded.errorMessage ?? ''}\n`);
    }
    if (options.dryRun) {
      io.stdout('dry run: nothing was published or committed\n');
      return EXIT.ok;
    }
    const done = await replayRecords(kafka, session, chosen, { rate, by, onProgress: progressReporter(io, 'replayed') });
    io.stdout(`replayed ${done} record${done === 1 ? '' : 's'} to ${session.consumer.mainTopic.name}; recorded in ${session.consumer.dlqAudit.name} as done by ${by}\n`);
    return EXIT.ok;
  });
}

export async function dlqDiscardCommand(given: CliIo, name: string, options: { ids?: string; reason?: string; by?: string }): Promise<number> {
  const io = humanIo(given);
  if (!options.ids) throw new UsageError('say which records to discard with --ids <partition>:<offset>,...');
  if (!options.reason?.trim()) throw new UsageError('a discard needs --reason "<why it cannot be saved>"');
  if (!options.by?.trim()) throw new UsageError('a discard needs --by "<who decided>"');
  const selection = selectionOf({ ids: options.ids });
  return withSession(io, name, async (session, kafka) => {
    const chosen = selectRecords(session.records, selection);
    const done = await discardRecords(kafka, session, chosen, { reason: options.reason!, by: options.by! });
    io.stdout(`discarded ${done} record${done === 1 ? '' : 's'} of ${session.consumer.dlq.name} (${chosen.map((r) => r.id).join(', ')}); recorded in ${session.consumer.dlqAudit.name}: "${options.reason}" by ${options.by}\n`);
    return EXIT.ok;
  });
}
