import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DlqBenchResult } from './dlq';
import type { MemoryRow } from './memory';
import type { PrecisionResult } from './precision';
import type { IncrementalSynth, SynthResults, SynthRow } from './synth';
import type { ThroughputRow } from './throughput';

export interface BenchResults {
  readonly date: string;
  readonly machine: string;
  /** An array in results measured before incremental synth was. */
  readonly synth: SynthResults | SynthRow[];
  readonly throughput: ThroughputRow[];
  readonly precision: PrecisionResult;
  readonly memory: MemoryRow[];
  readonly hotPathOpsPerSecond: number;
  /** Absent in results measured before the DLQ section existed. */
  readonly dlq?: DlqBenchResult;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');

export function resultsMarkdown(r: BenchResults): string {
  const bare = r.throughput[0]!.recordsPerSecond;
  const ratio = (row: ThroughputRow) => row.recordsPerSecond / bare;
  const { scale, incremental, date: synthDate } = synthSections(r.synth);
  const synthMeasured = synthDate && synthDate !== r.date ? ` (measured ${synthDate}, apart from the rest)` : '';
  const big = scale.find((s) => s.consumers === 1000);
  const hundred = scale.find((s) => s.consumers === 100);
  const [small, large] = r.memory;
  const growth = small && large ? (large.rssMb - small.rssMb) / small.rssMb : NaN;
  const auto = r.throughput.find((t) => t.variant.includes('autoCommit'));
  const wrapped0 = r.throughput.find((t) => t.variant.includes('0% failing') && !t.variant.includes('10%'))!;
  const wrapped1 = r.throughput.find((t) => t.variant.includes(', 1% failing') && t.variant.startsWith('create'))!;
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
    ...(incremental ? incrementalTargets(incremental) : []),
    big && hundred ? `| roughly linear growth, 100 -> 1,000 consumers | ${fmt(big.krtMs / hundred.krtMs, 1)}x the time for 10x the consumers | ${verdict(big.krtMs / hundred.krtMs <= 15)} |` : '',
    `| wrapped consumer at 0% failures >= 0.9x the bare loop | ${fmt(ratio(wrapped0), 2)}x | ${verdict(ratio(wrapped0) >= 0.9)} |`,
    `| wrapped consumer at 1% failures >= 0.8x the bare loop | ${fmt(ratio(wrapped1), 2)}x | ${verdict(ratio(wrapped1) >= 0.8)} |`,
    `| zero early deliveries | ${r.precision.early} | ${verdict(r.precision.early === 0)} |`,
    `| p99 lateness within 250 ms | ${fmt(r.precision.p99Ms)} ms | ${verdict(r.precision.p99Ms <= 250)} |`,
    `| RSS growth from 1,000 to 100,000 waiting records under 10% | ${fmt(growth * 100, 1)}% | ${verdict(growth < 0.1)} |`,
    '',
    `## Synth at scale (4 tiers per consumer; medians of 3 alternating runs)${synthMeasured}`,
    '',
    '| consumers | files | krt synth | floor (same resources as JSON) | ratio | peak RSS krt | peak RSS floor |',
    '|---|---|---|---|---|---|---|',
    ...scale.map((s) => `| ${fmt(s.consumers)} | ${fmt(s.files)} | ${fmt(s.krtMs)} ms | ${fmt(s.floorMs)} ms | ${fmt(s.krtMs / s.floorMs, 1)}x | ${fmt(s.krtRssMb)} MB | ${fmt(s.floorRssMb)} MB |`),
    '',
    ...(incremental ? incrementalSection(incremental) : []),
    '## Throughput on the real broker (best of 2 alternating rounds)',
    '',
    '| variant | records/s | vs the bare loop | vs the autoCommit loop |',
    '|---|---|---|---|',
    ...r.throughput.map((t) => `| ${t.variant} | ${fmt(t.recordsPerSecond)} | ${fmt(ratio(t), 2)}x | ${auto ? `${fmt(t.recordsPerSecond / auto.recordsPerSecond, 2)}x` : ''} |`),
    '',
    'The targets compare with the bare loop that commits after each record. The runtime commits',
    'in batches (only after the publish is acknowledged), so the loop that lets kafkajs commit',
    'after each batch, which never routes a failure anywhere, is the fairer ceiling.',
    '',
    '## Delay precision (a 5 s tier, records produced at a steady rate)',
    '',
    '| records | p50 lateness | p99 | max | early deliveries |',
    '|---|---|---|---|---|',
    `| ${fmt(r.precision.records)} | ${fmt(r.precision.p50Ms)} ms | ${fmt(r.precision.p99Ms)} ms | ${fmt(r.precision.maxMs)} ms | ${r.precision.early} |`,
    '',
    '## Memory of the retry consumer with records waiting in a tier (median of 3 alternating rounds)',
    '',
    '| waiting records | RSS |',
    '|---|---|',
    ...r.memory.map((m) => `| ${fmt(m.waiting)} | ${fmt(m.rssMb, 1)} MB |`),
    '',
    '## Hot path',
    '',
    `Resolve a destination and encode its headers: ${fmt(r.hotPathOpsPerSecond)} operations per second.`,
    '',
    ...(r.dlq ? dlqMarkdown(r.dlq) : []),
  ]
    .filter((line) => line !== '')
    .join('\n')
    .replace(/\n(#+ )/g, '\n\n$1')
    .replace(/\n(\|[^\n]*\n)(?!\|)/g, '\n$1\n') + '\n';
}

function dlqMarkdown(d: DlqBenchResult): string[] {
  return [
    `## The DLQ tools and monitor on the real broker (${fmt(d.records)} records, four interleaved error classes)`,
    '',
    '| operation | records/s | peak RSS of the process |',
    '|---|---|---|',
    `| inspect (read every unhandled record, group and format them) | ${fmt(d.inspect.recordsPerSecond)} | ${fmt(d.inspect.peakRssMb)} MB |`,
    `| replay all (publish, audit, commit in acknowledged steps) | ${fmt(d.replay.recordsPerSecond)} | ${fmt(d.replay.peakRssMb)} MB |`,
    '',
    `A monitor poll of a DLQ whose replay group lists ${fmt(d.handledRangeOffsets)} handled offsets (one range) takes ${fmt(d.monitorPollMs)} ms on the broker (median of 3), of which the handled-state arithmetic takes ${fmt(d.handledStateMs, 2)} ms.`,
    '',
  ];
}

function synthSections(synth: BenchResults['synth']): { date?: string; scale: SynthRow[]; incremental?: IncrementalSynth } {
  return Array.isArray(synth) ? { scale: synth } : synth;
}

function incrementalTargets(i: IncrementalSynth): string[] {
  const consumers = fmt(i.topologyFiles * i.consumersPerFile);
  const row = (what: string, ms: number) =>
    `| ${what} within 2x one topology's synth | ${fmt(ms / i.aloneMs, 2)}x (${fmt(ms)} ms vs ${fmt(i.aloneMs)} ms) | ${verdict(ms <= 2 * i.aloneMs)} |`;
  return [row(`\`krt synth --check\` of an unchanged ${consumers}-consumer repository`, i.checkMs), row('`krt synth` after a one-topology edit', i.editMs)];
}

function incrementalSection(i: IncrementalSynth): string[] {
  return [
    `## Incremental synth (${fmt(i.topologyFiles)} topology files of ${fmt(i.consumersPerFile)} consumers, the built CLI, module loading included; medians of 3 alternating runs)`,
    '',
    '| run | time | peak RSS |',
    '|---|---|---|',
    `| \`krt synth\` of one of those files alone, from scratch | ${fmt(i.aloneMs)} ms | |`,
    `| \`krt synth\` of the whole repository, from scratch (one run) | ${fmt(i.fullMs)} ms | |`,
    `| \`krt synth --check\`, nothing changed | ${fmt(i.checkMs)} ms | ${fmt(i.checkRssMb)} MB |`,
    `| \`krt synth --check --no-cache\`, nothing changed (every file loaded and generated) | ${fmt(i.checkNoCacheMs)} ms | |`,
    `| \`krt synth\` after one topology file changed | ${fmt(i.editMs)} ms | ${fmt(i.editRssMb)} MB |`,
    '',
  ];
}

/** Two bar groups: throughput relative to the bare loop, and synth time relative to the floor. */
export function chartSvg(r: BenchResults): string {
  const bare = r.throughput[0]!.recordsPerSecond;
  const bars = [
    ...r.throughput.map((t) => ({ label: t.variant, value: t.recordsPerSecond / bare, unit: 'x bare loop' })),
    ...synthSections(r.synth).scale.map((s) => ({ label: `synth ${s.consumers} consumers`, value: s.krtMs / s.floorMs, unit: 'x floor' })),
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
