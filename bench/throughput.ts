/**
 * Throughput on the real broker, per client: the client's fastest plain loop (eachBatch,
 * partitions side by side, auto-commit: the baseline of the goals) and the plain
 * auto-committing eachMessage loop a team ships, against createRetryingConsumer with 0%,
 * 1% and 10% of records failing, side by side on the same topic in alternating rounds.
 * Records carry 512-byte values, so the topic (about 160 MB) is some 25 times what a
 * client fetches before its first record is handled (one fetch: 1 MiB a partition): the
 * rate, timed from the first record handled to the last, measures the fetching and the
 * work, not a prefetched topic. The loop that commits after each record and the blocking
 * sleep-and-retry loop are kept for contrast.
 * Each variant runs in a process of its own (bench/throughput-child.ts): in one process
 * the clients of earlier variants (the Confluent client's native buffers above all) grew
 * the heap past a gigabyte, and later rounds ran up to ten times slower.
 */
import { execFileSync } from 'node:child_process';
import { createRetryingConsumer } from '../src/runtime/retrying-consumer';
import type { ConsumerDescriptor } from '../src/runtime/descriptor';
import { benchClient, runnableClients } from './clients';
import type { BenchClient, BenchClientName, PlainRecord } from './clients';
import { compiledChild } from './compiled-child';
import { benchKafka, freshTopics, produce } from './kafka';

export type ThroughputKind = 'fastest plain loop' | 'auto-commit loop' | 'wrapped' | 'commit-per-record loop' | 'blocking retry loop';

/** The size of every record's value: a realistic event, not a few bytes. */
export const VALUE_BYTES = 512;

/** The partitions of the topic, all read side by side by the fastest loop and the wrapped consumer. */
const PARTITIONS = 6;

export interface ThroughputRow {
  readonly client: BenchClientName;
  readonly kind: ThroughputKind;
  /** Percent of records whose handler throws a transient error (routed to a tier). */
  readonly failingPercent: number;
  readonly records: number;
  readonly recordsPerSecond: number;
  /** Bytes of each record's value; absent in results measured with values of a few bytes. */
  readonly valueBytes?: number;
}

const http503 = () => Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });
const SPACE = 0x20;
const ZERO = 0x30;
/**
 * Whether the record at index i (its value's leading digits, padded with spaces: bench/kafka.ts
 * produce) is one of the `percent` in a hundred that fail, i % 100 < percent, read from the two
 * digits before the padding as bytes. Decoding the digits to a string and a number was a visible
 * share of the failing rows' time (docs/benchmarks.md), none of it the wrapper's, and none of it
 * paid by the plain loops those rows are measured against.
 */
export function fails(value: Buffer | null, percent: number): boolean {
  let end = 0;
  while (end < value!.length && value![end] !== SPACE) end++;
  const units = end >= 1 ? value![end - 1]! - ZERO : 0;
  const tens = end >= 2 ? value![end - 2]! - ZERO : 0;
  return tens * 10 + units < percent;
}

/** Counts finished records; the rate runs from the first record handled to the last finished. */
class Progress {
  private done = 0;
  private first: number | undefined;
  private finishedAt: number | undefined;
  private readonly finished: Promise<void>;
  private finish!: () => void;
  constructor(private readonly count: number) {
    this.finished = new Promise((resolve) => (this.finish = resolve));
  }
  started(): void {
    this.first ??= performance.now();
  }
  tick(): void {
    if (++this.done === this.count) {
      this.finishedAt = performance.now();
      this.finish();
    }
  }
  /** Fails at once when records stop coming for 30 s: a stuck variant must not hold the run for minutes. */
  async rate(): Promise<number> {
    let seen = -1;
    while (!(await Promise.race([this.finished.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 30_000))]))) {
      if (this.done === seen) throw new Error(`no progress for 30 s: ${this.done} of ${this.count} records`);
      seen = this.done;
    }
    return (this.count * 1000) / (this.finishedAt! - this.first!);
  }
}

/** The same topics read by a fresh set of groups: each variant starts from the beginning. */
function freshGroups(d: ConsumerDescriptor, variant: string): ConsumerDescriptor {
  const id = `${d.name}-${variant}`;
  return { ...d, name: id, groups: { main: id, retry: `${id}.retry`, replay: `${id}.dlq-replay`, monitor: `${id}.dlq-monitor` } };
}

/** The rate of a plain loop that `start` runs over `count` records, each record only counted. */
async function timedLoop(count: number, start: (onRecord: () => Promise<void>) => Promise<() => Promise<void>>): Promise<number> {
  const progress = new Progress(count);
  const stop = await start(async () => {
    progress.started();
    progress.tick();
  });
  try {
    return await progress.rate();
  } finally {
    await stop();
  }
}

const autoCommitLoop = (client: BenchClient, d: ConsumerDescriptor, count: number) =>
  timedLoop(count, (onRecord) => client.autoCommitLoop(d.mainTopic, freshGroups(d, `${client.name}-auto`).groups.main, onRecord));

const fastestLoop = (client: BenchClient, d: ConsumerDescriptor, count: number) =>
  timedLoop(count, (onRecord) => client.fastestLoop(d.mainTopic, freshGroups(d, `${client.name}-fastest`).groups.main, PARTITIONS, onRecord));

async function wrapped(client: BenchClient, d: ConsumerDescriptor, count: number, percent: number): Promise<number> {
  const descriptor = freshGroups(d, `${client.name}-wrap${percent}`);
  const progress = new Progress(count);
  const consumer = createRetryingConsumer(descriptor, {
    kafka: client.port(),
    handler: async (record) => {
      progress.started();
      if (record.topic !== descriptor.mainTopic) return;
      // At 0% nothing is read from the record, as the plain loops it is measured against read nothing.
      if (percent > 0 && fails(record.message.value, percent)) throw http503();
      progress.tick();
    },
    // A failed record is finished once its publish to the tier is acknowledged.
    onEvent: (e) => void (e.type === 'routed' && e.record.topic === descriptor.mainTopic && progress.tick()),
  });
  await consumer.start();
  try {
    return await progress.rate();
  } finally {
    await consumer.stop();
  }
}

/** kafkajs with autoCommit off, committing each record itself (a round trip per record): contrast only. */
async function commitPerRecord(d: ConsumerDescriptor, count: number, variant = 'commit-each', work: (record: PlainRecord) => Promise<void> = async () => {}): Promise<number> {
  const progress = new Progress(count);
  const groupId = freshGroups(d, variant).groups.main;
  const consumer = benchKafka().consumer({ groupId });
  await consumer.connect();
  await consumer.subscribe({ topics: [d.mainTopic], fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic, partition, message }) => {
      progress.started();
      await work(message);
      await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
      progress.tick();
    },
  });
  try {
    return await progress.rate();
  } finally {
    await consumer.disconnect();
  }
}

/** The antipattern: a failing record is retried in the handler with a sleep, blocking its partition. */
const blockingRetry = (d: ConsumerDescriptor, count: number, percent: number) =>
  commitPerRecord(d, count, 'blocking', async (record) => {
    for (let attempt = 1; fails(record.value, percent) && attempt < 3; attempt++) await new Promise((r) => setTimeout(r, 100 * attempt));
  });

/** One variant: which loop, on which client, how many records, how many failing. */
export type Variant = Omit<ThroughputRow, 'recordsPerSecond' | 'valueBytes'>;

/** Runs one variant over the topic of `d` in this process; resolves to its records per second. */
export function runVariant(variant: Variant, d: ConsumerDescriptor): Promise<number> {
  const client = benchClient(variant.client);
  switch (variant.kind) {
    case 'fastest plain loop':
      return fastestLoop(client, d, variant.records);
    case 'auto-commit loop':
      return autoCommitLoop(client, d, variant.records);
    case 'wrapped':
      return wrapped(client, d, variant.records, variant.failingPercent);
    case 'commit-per-record loop':
      return commitPerRecord(d, variant.records);
    case 'blocking retry loop':
      return blockingRetry(d, variant.records, variant.failingPercent);
  }
}

/**
 * Runs one variant in a process of its own, so no earlier variant's clients or garbage weigh on
 * it, compiled to JavaScript as the runtime runs in service (compiled-child.ts: through jiti the
 * baselines and the wrapper ran slower by different amounts).
 */
function runVariantApart(variant: Variant, d: ConsumerDescriptor): number {
  const out = execFileSync(process.execPath, [compiledChild('throughput-child'), JSON.stringify({ variant, descriptor: d })], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  // The last line: a client may print lines of its own before it.
  const last = out.trim().split('\n').pop()!;
  return (JSON.parse(last) as { recordsPerSecond: number }).recordsPerSecond;
}

function variants(count: number, contrastCount: number, log: (line: string) => void): Variant[] {
  const perClient = runnableClients(log).flatMap((client): Variant[] => [
    { client: client.name, kind: 'fastest plain loop', failingPercent: 0, records: count },
    { client: client.name, kind: 'auto-commit loop', failingPercent: 0, records: count },
    ...[0, 1, 10].map((percent): Variant => ({ client: client.name, kind: 'wrapped', failingPercent: percent, records: count })),
  ]);
  return [
    ...perClient,
    { client: 'kafkajs', kind: 'commit-per-record loop', failingPercent: 0, records: contrastCount },
    { client: 'kafkajs', kind: 'blocking retry loop', failingPercent: 1, records: contrastCount },
  ];
}

const keyOf = (row: Variant) => `${row.client}/${row.kind}/${row.failingPercent}`;

/**
 * Every variant reads the same freshly produced topic (6 partitions) with its own groups,
 * in alternating order each round; the best round per variant (the least disturbed by a
 * shared machine) is reported.
 */
export async function benchThroughput(count = 300_000, rounds = 2, contrastCount = 2_000, log: (line: string) => void = () => {}): Promise<ThroughputRow[]> {
  const all = variants(count, contrastCount, log);
  const best = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    const d = await freshTopics(`tp${round}`, [3600], PARTITIONS);
    await produce(d.mainTopic, count, () => ({}), VALUE_BYTES);
    for (const variant of round % 2 === 0 ? all : [...all].reverse()) {
      const rate = runVariantApart(variant, d);
      log(`round ${round + 1}: ${benchClient(variant.client).title}, ${variant.kind}, ${variant.failingPercent}% failing: ${Math.round(rate)} records/s`);
      best.set(keyOf(variant), Math.max(best.get(keyOf(variant)) ?? 0, rate));
    }
  }
  return all.map((variant) => ({ ...variant, recordsPerSecond: best.get(keyOf(variant))!, valueBytes: VALUE_BYTES }));
}
