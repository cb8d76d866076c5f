import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ConsoleBenchRow } from './console';
import type { DlqBenchResult } from './dlq';
import type { MemoryRow } from './memory';
import type { PrecisionResult } from './precision';
import type { CappedSynth, IncrementalSynth, SynthResults, SynthRow, YoungCappedSynth } from './synth';
import type { OverheadResult } from './overhead';
import type { OutageResult } from './outage';
import { benchClient, BENCH_CLIENTS } from './clients';
import type { BenchClientName } from './clients';
import type { ThroughputKind, ThroughputRow } from './throughput';
import type { TracingBenchRow } from './tracing';

/** The sections of `npm run bench`, each of which a partial run may measure alone. */
export type BenchSection = 'synth' | 'hot-path' | 'overhead' | 'tracing' | 'throughput' | 'precision' | 'memory' | 'dlq' | 'console' | 'outage';

/**
 * When and where a section was measured, and what the run's note said of it (`--note`): a
 * partial run keeps the other sections' figures, so each says if it came from another run.
 */
export interface SectionProvenance {
  /** The run's start, to the minute (UTC). */
  readonly run: string;
  readonly machine: string;
  readonly note?: string;
}

export interface BenchResults {
  readonly date: string;
  readonly machine: string;
  /** The latest run's start; absent in results written before sections kept their provenance. */
  readonly run?: string;
  readonly measured?: Partial<Record<BenchSection, SectionProvenance>>;
  readonly synth: SynthResults;
  readonly throughput: ThroughputRow[];
  /** One per client. */
  readonly precision: PrecisionResult[];
  readonly memory: MemoryRow[];
  readonly hotPathOpsPerSecond: number;
  /** Absent in results measured before the DLQ section existed. */
  readonly dlq?: DlqBenchResult;
  /** Absent in results measured before the overhead section existed. */
  readonly overhead?: OverheadResult;
  /** Absent in results measured before the tracing section existed. */
  readonly tracing?: readonly TracingBenchRow[];
  /** Absent in results measured before the console section existed. */
  readonly console?: readonly ConsoleBenchRow[];
  /** One per client; absent in results measured before the outage section existed. */
  readonly outage?: readonly OutageResult[];
}

/**
 * A section's heading, then where its figures come from when that is not the latest run as a
 * whole (a partial run measured the others), with the note its run was given.
 */
function heading(r: BenchResults, section: BenchSection, text: string): string[] {
  const m = r.measured?.[section];
  if (!m) return [text, ''];
  const apart = m.run !== r.run || m.machine !== r.machine;
  if (!apart && !m.note) return [text, ''];
  // A run recorded before runs kept their minute (a date alone) says the date.
  const at = m.run.includes('T') ? `${m.run.replace('T', ' ')} UTC` : m.run;
  const when = apart ? `Measured ${at} on ${m.machine}, in another run than the latest` : 'Measured in the latest run';
  return [text, '', `${when}${m.note ? `: ${m.note}` : ''}.`, ''];
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');

export function resultsMarkdown(r: BenchResults): string {
  const { scale, incremental, capped, youngCapped } = r.synth;
  const big = scale.find((s) => s.consumers === 1000);
  const hundred = scale.find((s) => s.consumers === 100);
  return [
    '# Benchmark results',
    '',
    `Measured ${r.date} on ${r.machine}, by \`npm run bench\`. Every figure is a ratio or a`,
    'distribution measured side by side in one run; the machine is shared and noisy.',
    '',
    '![chart](chart.svg)',
    '',
    '## Targets',
    '',
    '| target | measured | |',
    '|---|---|---|',
    big ? `| synth of 1,000 consumers within 20x the floor | ${fmt(big.krtMs / big.floorMs, 1)}x (${fmt(big.krtMs / 1000, 1)} s) | ${verdict(big.krtMs / big.floorMs <= 20)} |` : '',
    big ? `| peak RSS of that synth under 400 MB | ${fmt(big.krtRssMb)} MB | ${verdict(big.krtRssMb < 400)} |` : '',
    capped ? `| the same synth with \`NODE_OPTIONS=--max-old-space-size=${capped.maxOldSpaceMb}\` (reported) | ${fmt(capped.rssMb)} MB peak RSS, ${fmt(capped.ms / 1000, 1)} s | reported |` : '',
    youngCapped ? `| the same synth with \`NODE_OPTIONS=--max-semi-space-size=${youngCapped.maxSemiSpaceMb}\` (reported) | ${fmt(youngCapped.rssMb)} MB peak RSS, ${fmt(youngCapped.ms / 1000, 1)} s | reported |` : '',
    ...(incremental ? incrementalTargets(incremental) : []),
    big && hundred ? `| roughly linear growth, 100 -> 1,000 consumers | ${fmt(big.krtMs / hundred.krtMs, 1)}x the time for 10x the consumers | ${verdict(big.krtMs / hundred.krtMs <= 15)} |` : '',
    ...BENCH_CLIENTS.flatMap((c) => throughputTargets(r.throughput, c.name)),
    ...(r.outage ?? []).map((o) => `| no record lost after a ${fmt(o.downMs / 1000)} s broker outage (${o.client}) | ${fmt(o.lost)} lost, ${fmt(o.duplicates)} run again | ${verdict(o.lost === 0)} |`),
    ...r.precision.flatMap((p) => [
      `| zero early deliveries (${titleOf(p.client)}) | ${p.early} | ${verdict(p.early === 0)} |`,
      `| p99 lateness within 250 ms (${titleOf(p.client)}) | ${fmt(p.p99Ms)} ms | ${verdict(p.p99Ms <= 250)} |`,
    ]),
    ...BENCH_CLIENTS.map((c) => memoryGrowth(r.memory, c.name)).flatMap((m) =>
      m ? [`| RSS growth from 1,000 to 100,000 waiting records under 10% (${titleOf(m.client)}) | ${fmt(m.growth * 100, 1)}% | ${verdict(m.growth < 0.1)} |`] : [],
    ),
    '',
    ...heading(r, 'synth', '## Synth at scale (4 tiers per consumer; medians of 3 alternating runs)'),
    '| consumers | files | krt synth | floor (same resources as JSON) | ratio | peak RSS krt | peak RSS floor |',
    '|---|---|---|---|---|---|---|',
    ...scale.map((s) => `| ${fmt(s.consumers)} | ${fmt(s.files)} | ${fmt(s.krtMs)} ms | ${fmt(s.floorMs)} ms | ${fmt(s.krtMs / s.floorMs, 1)}x | ${fmt(s.krtRssMb)} MB | ${fmt(s.floorRssMb)} MB |`),
    '',
    ...(capped ? cappedSection(capped, big, youngCapped) : []),
    ...(incremental ? incrementalSection(incremental) : []),
    ...throughputMarkdown(r, r.throughput),
    ...(r.overhead ? overheadMarkdown(r, r.overhead) : []),
    ...(r.tracing ? tracingMarkdown(r, r.tracing) : []),
    ...heading(r, 'precision', '## Delay precision (a 5 s tier, records produced at a steady rate)'),
    '| client | records | p50 lateness | p99 | max | early deliveries |',
    '|---|---|---|---|---|---|',
    ...r.precision.map((p) => `| ${titleOf(p.client)} | ${fmt(p.records)} | ${fmt(p.p50Ms)} ms | ${fmt(p.p99Ms)} ms | ${fmt(p.maxMs)} ms | ${p.early} |`),
    '',
    ...heading(r, 'memory', '## Memory of the retry consumer with records waiting in a tier (median of 3 alternating rounds)'),
    '| client | waiting records | RSS |',
    '|---|---|---|',
    ...r.memory.map((m) => `| ${titleOf(m.client)} | ${fmt(m.waiting)} | ${fmt(m.rssMb, 1)} MB |`),
    '',
    ...heading(r, 'hot-path', '## Hot path'),
    `Resolve a destination and encode its headers: ${fmt(r.hotPathOpsPerSecond)} operations per second.`,
    '',
    ...(r.dlq ? dlqMarkdown(r, r.dlq) : []),
    ...(r.console ? consoleMarkdown(r, r.console) : []),
    ...(r.outage ? outageMarkdown(r, r.outage) : []),
  ]
    .filter((line) => line !== '')
    .join('\n')
    .replace(/\n(#+ )/g, '\n\n$1')
    .replace(/\n(\|[^\n]*\n)(?!\|)/g, '\n$1\n')
    // A table after a line of text starts a block of its own (a table does not interrupt a paragraph everywhere).
    .replace(/\n([^|\n][^\n]*)\n\|/g, '\n$1\n\n|') + '\n';
}

const titleOf = (client: BenchClientName) => benchClient(client).title;

/** A client's row of one kind. */
function rowOf(rows: readonly ThroughputRow[], client: BenchClientName, kind: ThroughputKind, failingPercent = 0): ThroughputRow | undefined {
  return rows.find((t) => t.client === client && t.kind === kind && t.failingPercent === failingPercent);
}

/** The goals are set against the client's fastest plain loop: the ceiling a wrapper can approach. */
function throughputTargets(rows: readonly ThroughputRow[], client: BenchClientName): string[] {
  const baseline = rowOf(rows, client, 'fastest plain loop');
  if (!baseline) return [];
  const ratioOf = (kind: ThroughputKind, percent: number) => {
    const row = rowOf(rows, client, kind, percent);
    return row ? row.recordsPerSecond / baseline.recordsPerSecond : undefined;
  };
  const target = (percent: number, floor: number) => {
    const ratio = ratioOf('wrapped', percent);
    return ratio === undefined ? '' : `| wrapped consumer at ${percent}% failing >= ${floor}x the fastest plain loop (${titleOf(client)}) | ${fmt(ratio, 2)}x | ${verdict(ratio >= floor)} |`;
  };
  const reported = (what: string, ratio: number | undefined) => (ratio === undefined ? '' : `| ${what} (${titleOf(client)}) | ${fmt(ratio, 2)}x | reported |`);
  return [
    target(0, 0.9),
    target(1, 0.8),
    reported('wrapped consumer at 10% failing, against the fastest plain loop, reported', ratioOf('wrapped', 10)),
    reported('plain auto-commit eachMessage loop, against the fastest plain loop, reported', ratioOf('auto-commit loop', 0)),
  ];
}

const KIND_TEXT: Record<ThroughputKind, (percent: number) => string> = {
  'fastest plain loop': () => 'fastest plain loop: eachBatch, 6 partitions side by side, auto-commit (the baseline)',
  'auto-commit loop': () => "plain eachMessage loop, the client's auto-commit",
  wrapped: (percent) => `createRetryingConsumer, ${percent}% failing`,
  'commit-per-record loop': () => 'plain loop committing after each record (contrast)',
  'blocking retry loop': (percent) => `blocking sleep-and-retry in the handler, ${percent}% failing, commit per record (contrast)`,
};

function throughputMarkdown(r: BenchResults, rows: readonly ThroughputRow[]): string[] {
  const wrappedRow = rows.find((t) => t.kind === 'wrapped');
  const records = wrappedRow?.records ?? 0;
  const valueBytes = wrappedRow?.valueBytes;
  const cell = (client: BenchClientName, kind: ThroughputKind, percent: number) => {
    const row = rowOf(rows, client, kind, percent);
    const baseline = rowOf(rows, client, 'fastest plain loop');
    if (!row) return '| | ';
    const megabytes = row.valueBytes ? `${fmt((row.recordsPerSecond * row.valueBytes) / 1e6, 1)}` : '';
    return `${fmt(row.recordsPerSecond)} | ${megabytes} | ${baseline ? `${fmt(row.recordsPerSecond / baseline.recordsPerSecond, 2)}x` : ''}`;
  };
  const kinds: [ThroughputKind, number][] = [['fastest plain loop', 0], ['auto-commit loop', 0], ['wrapped', 0], ['wrapped', 1], ['wrapped', 10], ['commit-per-record loop', 0], ['blocking retry loop', 1]];
  return [
    ...heading(r, 'throughput', `## Throughput on the real broker (${fmt(records)} records${valueBytes ? ` of ${fmt(valueBytes)}-byte values` : ''}, 6 partitions; best of alternating rounds)`),
    `| variant | ${BENCH_CLIENTS.map((c) => `${c.title} records/s | MB/s of values | vs its fastest loop`).join(' | ')} |`,
    `|---|${BENCH_CLIENTS.map(() => '---|---|---|').join('')}`,
    ...kinds
      .filter(([kind, percent]) => BENCH_CLIENTS.some((c) => rowOf(rows, c.name, kind, percent)))
      .map(([kind, percent]) => `| ${KIND_TEXT[kind](percent)} | ${BENCH_CLIENTS.map((c) => cell(c.name, kind, percent)).join(' | ')} |`),
    '',
    "The baseline is each client's fastest plain loop: eachBatch with its partitions side by",
    "side and the client's auto-commit (the Confluent client's batches as large as the",
    "runtime's adapter asks for), which never routes a failure anywhere: the ceiling a",
    'wrapper can approach. The plain eachMessage loop is the loop teams ship. Rates run from',
    'the first record handled to the last; with values of this size the topic is some 25',
    'times what a client fetches before its first record, so the fetching is timed too. The',
    'wrapped consumer reads the same topic with its own groups; a failing record counts as',
    'finished once its publish to the tier is acknowledged. The loops that commit after each',
    `record are contrast only (${fmt(rows.find((t) => t.kind === 'commit-per-record loop')?.records ?? 0)} records).`,
    '',
  ];
}

function outageMarkdown(r: BenchResults, rows: readonly OutageResult[]): string[] {
  const first = rows[0];
  if (!first) return [];
  return [
    ...heading(r, 'outage', `## A broker outage under load (${fmt(first.records)} main records handled, some waiting in a 10 s tier, the broker killed for ${fmt(first.downMs / 1000)} s and started again)`),
    '| client | records waiting in the tier | from the broker back to every record handled | records run again | lost |',
    '|---|---|---|---|---|',
    ...rows.map((o) => `| ${o.client} | ${fmt(o.waitingInTier)} | ${o.recoveryMs === undefined ? '**not within the time allowed**' : `${fmt(o.recoveryMs / 1000, 1)} s`} | ${fmt(o.duplicates)} | ${fmt(o.lost)} |`),
    '',
    'kafkajs and the Confluent client come back as a new group member once the outage and the',
    'broker start-up outlast the group session (30 s): the broker then holds the group until the',
    "old member's session ends, which is most of the recovery time. @platformatic/kafka rejoins as",
    'the member it was. A record finished before the outage does not run again after the',
    'rebalance, even when its commit was lost (a kafkajs commit counts only once kafkajs reports',
    'it answered: docs/runtime.md).',
    '',
  ];
}

function memoryGrowth(rows: readonly MemoryRow[], client: BenchClientName): { client: BenchClientName; growth: number } | undefined {
  const mine = rows.filter((m) => m.client === client);
  const [small, large] = mine;
  return small && large ? { client, growth: (large.rssMb - small.rssMb) / small.rssMb } : undefined;
}

function dlqMarkdown(r: BenchResults, d: DlqBenchResult): string[] {
  return [
    ...heading(r, 'dlq', `## The DLQ tools and monitor on the real broker (${fmt(d.records)} records, four interleaved error classes)`),
    '| operation | records/s | peak RSS of the process |',
    '|---|---|---|',
    `| inspect (read every unhandled record, group and format them) | ${fmt(d.inspect.recordsPerSecond)} | ${fmt(d.inspect.peakRssMb)} MB |`,
    `| replay all (publish, audit, commit in acknowledged steps) | ${fmt(d.replay.recordsPerSecond)} | ${fmt(d.replay.peakRssMb)} MB |`,
    '',
    `A monitor poll of a DLQ whose replay group lists ${fmt(d.handledRangeOffsets)} handled offsets (one range) takes ${fmt(d.monitorPollMs)} ms on the broker (median of 3), of which the handled-state arithmetic takes ${fmt(d.handledStateMs, 2)} ms.`,
    '',
  ];
}

/** ` (N ms of CPU)` after a wall time, when the row measured it. */
const cpuOf = (ms: number | undefined) => (ms === undefined ? '' : ` (${fmt(ms)} ms of CPU)`);

function consoleMarkdown(r: BenchResults, rows: readonly ConsoleBenchRow[]): string[] {
  // Rows measured before the console paged through offsets have no inspect columns.
  const current = rows.filter((c) => c.inspectMs !== undefined);
  if (current.length === 0) return [];
  return [
    ...heading(r, 'console', '## krt console and krt dlq inspect on the real broker (~512-byte values with DLQ headers, 3 partitions)'),
    '| DLQ records | console: first page (50 records) | next page | counts and groups (after the page) | console RSS before | console peak RSS | `inspect --json` | inspect peak RSS |',
    '|---|---|---|---|---|---|---|---|',
    ...current.map((c) => `| ${fmt(c.records)} | ${fmt(c.firstPageMs)} ms${cpuOf(c.firstPageCpuMs)} | ${fmt(c.nextPageMs)} ms${cpuOf(c.nextPageCpuMs)} | ${fmt(c.summaryMs)} ms | ${fmt(c.baseRssMb)} MB | ${fmt(c.peakRssMb)} MB | ${fmt(c.inspectMs)} ms | ${fmt(c.inspectPeakRssMb)} MB |`),
    '',
    "Each in a process of its own. A page reads from its cursor to the end of the page; the counts and groups load after it, read to the DLQ's end without holding records; inspect prints each record as it reads it. The first page's time includes joining the reader group (the test broker sets `group.initial.rebalance.delay.ms=0`; a broker with Kafka's default adds up to 3 s to every session's join).",
    '',
    ...cappedConsoleMarkdown(current),
  ];
}

/** The same reads with V8's old space capped: finishing within the cap shows that nothing grows with the DLQ. */
function cappedConsoleMarkdown(rows: readonly ConsoleBenchRow[]): string[] {
  const capped = rows.filter((c) => c.capped !== undefined);
  if (capped.length === 0) return [];
  const peak = (mb: number | null) => (mb === null ? '**ran out of heap**' : `${fmt(mb)} MB`);
  return [
    `With V8's old space capped at ${fmt(capped[0]!.capped!.oldSpaceMb)} MB (\`--max-old-space-size\`), the same first page, next page, counts and overview, and the same \`inspect --json\`, each in a process of its own: a process that held records as it read would run out of heap.`,
    '',
    '| DLQ records | console peak RSS, capped | inspect peak RSS, capped |',
    '|---|---|---|',
    ...capped.map((c) => `| ${fmt(c.records)} | ${peak(c.capped!.consolePeakRssMb)} | ${peak(c.capped!.inspectPeakRssMb)} |`),
    '',
  ];
}

function incrementalTargets(i: IncrementalSynth): string[] {
  const consumers = fmt(i.topologyFiles * i.consumersPerFile);
  const row = (what: string, ms: number) =>
    `| ${what} within 2x one topology's synth | ${fmt(ms / i.aloneMs, 2)}x (${fmt(ms)} ms vs ${fmt(i.aloneMs)} ms) | ${verdict(ms <= 2 * i.aloneMs)} |`;
  return [
    row(`\`krt synth --check\` of an unchanged ${consumers}-consumer repository`, i.checkMs),
    row('`krt synth` after a one-topology edit', i.editMs),
    `| \`krt synth\` after a one-topology edit in a ${consumers}-consumer repository under 1 s | ${fmt(i.editMs)} ms${i.editCpuMs === undefined ? '' : ` (${fmt(i.editCpuMs)} ms of CPU)`} | ${verdict(i.editMs < 1000)} |`,
  ];
}

function incrementalSection(i: IncrementalSynth): string[] {
  return [
    `## Incremental synth (${fmt(i.topologyFiles)} topology files of ${fmt(i.consumersPerFile)} consumers, the built CLI, module loading included; medians of 3 alternating runs)`,
    '',
    '| run | time | peak RSS |',
    '|---|---|---|',
    `| \`krt synth\` of one of those files alone, from scratch | ${fmt(i.aloneMs)} ms | |`,
    `| \`krt synth\` of the whole repository, from scratch (one run) | ${fmt(i.fullMs)} ms | ${i.fullRssMb === undefined ? '' : `${fmt(i.fullRssMb)} MB`} |`,
    `| \`krt synth --check\`, nothing changed | ${fmt(i.checkMs)} ms | ${fmt(i.checkRssMb)} MB |`,
    `| \`krt synth --check --no-cache\`, nothing changed (every file loaded and generated) | ${fmt(i.checkNoCacheMs)} ms | |`,
    `| \`krt synth\` after one topology file changed | ${fmt(i.editMs)} ms | ${fmt(i.editRssMb)} MB |`,
    ...(i.editCpuMs === undefined || i.aloneCpuMs === undefined ? [] : [`| CPU time of the one-file synth and of the edit (user and system) | ${fmt(i.aloneCpuMs)} and ${fmt(i.editCpuMs)} ms | |`]),
    ...(i.afterOneFileMs === undefined ? [] : [`| \`krt synth\`, nothing changed, right after a synth of one file into another folder | ${fmt(i.afterOneFileMs)} ms | |`]),
    ...(i.afterRefusedMs === undefined ? [] : [`| \`krt synth\`, nothing changed, right after a refused synth | ${fmt(i.afterRefusedMs)} ms | |`]),
    '',
  ];
}

function cappedSection(c: CappedSynth, uncapped: SynthRow | undefined, young: YoungCappedSynth | undefined): string[] {
  return [
    `## Where the memory of a ${fmt(c.consumers)}-consumer synth goes`,
    '',
    `With V8's old space capped at ${fmt(c.maxOldSpaceMb)} MB (\`NODE_OPTIONS=--max-old-space-size=${fmt(c.maxOldSpaceMb)}\`), the same synth`,
    `peaks at ${fmt(c.rssMb)} MB RSS in ${fmt(c.ms / 1000, 1)} s${uncapped ? ` (uncapped: ${fmt(uncapped.krtRssMb)} MB in ${fmt(uncapped.krtMs / 1000, 1)} s)` : ''}. The data`,
    'alive at once is the cdktf construct tree of the topology being emitted and its',
    'Terraform JSON; the rest of the uncapped peak is garbage V8 lets pile up while memory',
    'is plentiful. A CI runner short of memory can set that cap.',
    ...(young
      ? [
          `With the young generation capped instead (\`NODE_OPTIONS=--max-semi-space-size=${fmt(young.maxSemiSpaceMb)}\`; Node 24 lets it grow`,
          `to 128 MB in a large synth), the same synth peaks at ${fmt(young.rssMb)} MB RSS in ${fmt(young.ms / 1000, 1)} s.`,
        ]
      : []),
    '',
  ];
}

function overheadMarkdown(r: BenchResults, o: OverheadResult): string[] {
  const m = o.perRecordMicros;
  const row = (what: string, micros: number) => `| ${what} | ${fmt(micros, 3)} µs |`;
  return [
    ...heading(r, 'overhead', `## Per-record overhead of the wrapper (in-memory broker, ${fmt(o.records)} records, 6 partitions; best of 5)`),
    '| what | per record |',
    '|---|---|',
    row('bare eachBatch loop awaiting a no-op handler', m.bareLoop),
    row('createRetryingConsumer with the same handler, no event listener', m.wrapped),
    m.wrapperOverhead > 0
      ? row('**what the wrapper adds** (the two above)', m.wrapperOverhead)
      : `| **what the wrapper adds** (the two above) | none measurable (${fmt(m.wrapperOverhead, 3)} µs) |`,
    row('createRetryingConsumer with an event listener', m.wrappedWithListener),
    row('a `processed` event built and handed to a listener, alone', m.events),
    row('counting a success (a counter cell, labels looked up once per consumer), alone', m.metrics),
    row("for comparison: prom-client's `inc(labels)`, the label lookup the cells avoid", m.metricsWithLabelLookup),
    row('marking the record done for the next commit (partition progress and committer), alone', m.commitMarking),
    '',
    'No network here, so the wrapper\'s own work is all there is to see. On the broker it is',
    'hidden behind fetches and publishes: the throughput table above is the figure that counts.',
    '',
  ];
}

function tracingMarkdown(r: BenchResults, rows: readonly TracingBenchRow[]): string[] {
  return [
    ...heading(r, 'tracing', `## What tracing costs per record (in-memory broker, ${fmt(rows[0]?.records ?? 0)} records of ${rows[0]?.valueBytes ?? 0}-byte values, 6 partitions; best of 3 alternating rounds)`),
    '| records failing | no tracer provider | a provider registered (spans recorded, exported nowhere) | ratio |',
    '|---|---|---|---|',
    ...rows.map((t) => `| ${t.failingPercent}% | ${fmt(t.untracedMicros, 1)} µs | ${fmt(t.tracedMicros, 1)} µs | ${fmt(t.tracedMicros / t.untracedMicros, 1)}x |`),
    '',
    'Without a provider the runtime makes no span (it checks per attempt that none is registered).',
    'With one, the cost is the SDK\'s span and its async context (every promise of the process is',
    'tracked), which no network hides here; see [tracing](../docs/tracing.md).',
    '',
  ];
}

/** Two bar groups: throughput relative to each client's auto-commit loop, and synth time relative to the floor. */
export function chartSvg(r: BenchResults): string {
  const bars = [
    ...r.throughput
      .filter((t) => t.kind === 'wrapped')
      .map((t) => ({
        label: `${titleOf(t.client)}, wrapped, ${t.failingPercent}% failing`,
        value: t.recordsPerSecond / rowOf(r.throughput, t.client, 'auto-commit loop')!.recordsPerSecond,
        unit: 'x auto-commit loop',
      })),
    ...r.synth.scale.map((s) => ({ label: `synth ${s.consumers} consumers`, value: s.krtMs / s.floorMs, unit: 'x floor' })),
  ];
  const width = 760;
  const rowHeight = 28;
  // Each group has its own scale: ratios near 1 and ratios near 50 do not share an axis.
  const maxOf = (unit: string) => Math.max(1, ...bars.filter((b) => b.unit === unit).map((b) => b.value));
  const rows = bars
    .map((b, i) => {
      const y = 40 + i * rowHeight;
      const w = Math.max(2, (b.value / maxOf(b.unit)) * 250);
      return `<text x="10" y="${y + 15}" font-size="12">${escape(b.label)}</text><rect x="420" y="${y + 3}" width="${w.toFixed(1)}" height="16" fill="${b.unit === 'x floor' ? '#8a6' : '#48c'}"/><text x="${(425 + w).toFixed(1)}" y="${y + 15}" font-size="12">${b.value.toFixed(2)} ${b.unit}</text>`;
    })
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${60 + bars.length * rowHeight}" font-family="sans-serif">\n<text x="10" y="22" font-size="14" font-weight="bold">kafka-retry-topology benchmarks, ${escape(r.date)}</text>\n${rows}\n</svg>\n`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Writes results.md and chart.svg beside this file; returns the Markdown. */
export function writeReport(results: BenchResults): string {
  const markdown = resultsMarkdown(results);
  writeFileSync(path.join(__dirname, 'results.md'), markdown);
  writeFileSync(path.join(__dirname, 'chart.svg'), chartSvg(results));
  return markdown;
}
