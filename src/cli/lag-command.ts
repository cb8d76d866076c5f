import type { Admin } from 'kafkajs';
import { kafkaFromEnv } from '../connection/kafka-connection';
import { retryingRetriable } from '../dlq/retriable';
import { visibleText } from '../util/visible-text';
import { findConsumer } from './dlq-command';
import { EXIT } from './io';
import type { CliIo } from './io';

interface PartitionLag {
  readonly partition: number;
  /** Where the group will read next: its committed offset, or the log start when it has none. */
  readonly committed: string;
  readonly end: string;
  readonly lag: number;
}

/**
 * `krt lag <consumer>`: per partition, how far the main group is behind in the main topic,
 * the retry group in each tier and the replay group in the DLQ (the backlog), with the
 * members of each group. Read-only, and within the monitor principal's ACLs (offsets of the
 * main topic, tiers and DLQ; Describe on the groups), so it works for a park-by-key
 * consumer too, whose tiers are read by the main group.
 */
export async function lagCommand(io: CliIo, name: string): Promise<number> {
  const consumer = await findConsumer(io, name);
  if (!consumer) return EXIT.problems;
  const admin = kafkaFromEnv(io.env ?? process.env, 'krt-lag').admin();
  // A section's requests run side by side: once one fails, the others' retries stop, so the
  // command ends (and disconnects) with nothing going on behind it to hold the process.
  const stop = new AbortController();
  await admin.connect();
  try {
    io.stdout(await section(admin, stop.signal, 'main topic', consumer.mainTopic.name, consumer.groups.main, 'lag'));
    for (const tier of consumer.tiers) {
      io.stdout(await section(admin, stop.signal, `tier ${tier.label}`, tier.name, consumer.groups.retry, 'lag'));
    }
    io.stdout(await section(admin, stop.signal, 'DLQ', consumer.dlq.name, consumer.groups.replay, 'backlog'));
    if (consumer.tiers.length === 0) io.stdout(`(${consumer.name} has no retry tiers: ordering ${consumer.ordering})\n`);
    return EXIT.ok;
  } finally {
    stop.abort();
    await admin.disconnect();
  }
}

async function section(admin: Admin, signal: AbortSignal, role: string, topic: string, group: string, what: 'lag' | 'backlog'): Promise<string> {
  const [partitions, members] = await Promise.all([lagOf(admin, signal, topic, group), membersOf(admin, signal, group)]);
  const total = partitions.reduce((sum, p) => sum + p.lag, 0);
  const rows = [['partition', 'committed', 'end', what], ...partitions.map((p) => [String(p.partition), p.committed, p.end, String(p.lag)])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const table = rows.map((r) => `  ${r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()}\n`).join('');
  return `${topic} (${role}), group ${group} (${members}): ${what} ${total}\n${table}\n`;
}

async function lagOf(admin: Admin, signal: AbortSignal, topic: string, group: string): Promise<PartitionLag[]> {
  const [ends, [committed]] = await Promise.all([
    retryingRetriable(() => admin.fetchTopicOffsets(topic), 20, signal),
    retryingRetriable(() => admin.fetchOffsets({ groupId: group, topics: [topic] }), 20, signal),
  ]);
  const byPartition = new Map((committed?.partitions ?? []).map((p) => [p.partition, p.offset]));
  return ends
    .map((p) => {
      const own = byPartition.get(p.partition);
      const next = own === undefined || own === '-1' ? p.low : own;
      return { partition: p.partition, committed: next, end: p.high, lag: Math.max(0, Number(BigInt(p.high) - BigInt(next))) };
    })
    .sort((a, b) => a.partition - b.partition);
}

async function membersOf(admin: Admin, signal: AbortSignal, group: string): Promise<string> {
  const { groups } = await retryingRetriable(() => admin.describeGroups([group]), 20, signal);
  const found = groups[0];
  const count = found?.members.length ?? 0;
  // Client ids are whatever each client chose: shown escaped, never run by the terminal.
  const clients = [...new Set((found?.members ?? []).map((m) => visibleText(m.clientId)))].sort();
  return `${found?.state ?? 'Unknown'}, ${count} member${count === 1 ? '' : 's'}${clients.length > 0 ? `: ${clients.join(', ')}` : ''}`;
}
