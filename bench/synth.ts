import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface SynthRow {
  readonly consumers: number;
  readonly krtMs: number;
  readonly floorMs: number;
  readonly krtRssMb: number;
  readonly floorRssMb: number;
  readonly files: number;
}

/** A repository of many topology files, synthesized through the real CLI (`dist/`). */
export interface IncrementalSynth {
  readonly topologyFiles: number;
  readonly consumersPerFile: number;
  /** `krt synth` in a folder holding one of those topology files alone, from scratch. */
  readonly aloneMs: number;
  /** `krt synth` of the whole repository from scratch (nothing generated, no cache). */
  readonly fullMs: number;
  /** `krt synth --check` of the unchanged repository, and the same with `--no-cache` (every file loaded and emitted, as before the cache). */
  readonly checkMs: number;
  readonly checkNoCacheMs: number;
  /** `krt synth` after one topology file changed. */
  readonly editMs: number;
  readonly checkRssMb: number;
  readonly editRssMb: number;
  /** CPU time (user and system) of the one-file synth and of the edit: on a shared machine, wall time includes waiting for a core (absent in older results). */
  readonly aloneCpuMs?: number;
  readonly editCpuMs?: number;
  /** `krt synth` of the unchanged repository right after a synth of one of its files into another folder, and after a refused synth (absent in older results). */
  readonly afterOneFileMs?: number;
  readonly afterRefusedMs?: number;
  /** Peak RSS of the from-scratch synth of the whole repository (absent in older results). */
  readonly fullRssMb?: number;
}

/**
 * The 1,000-consumer synth again with V8's old space capped: the live heap is far below the
 * uncapped peak RSS, which is V8 growing its heap lazily while garbage piles up.
 */
export interface CappedSynth {
  readonly consumers: number;
  readonly maxOldSpaceMb: number;
  readonly ms: number;
  readonly rssMb: number;
}

/** The 1,000-consumer synth again with V8's young generation capped (Node 24 grows it to 128 MB in a large synth). */
export interface YoungCappedSynth {
  readonly consumers: number;
  readonly maxSemiSpaceMb: number;
  readonly ms: number;
  readonly rssMb: number;
}

export interface SynthResults {
  /** When these were measured (YYYY-MM-DD): shown when it is not the date of the rest. */
  readonly date?: string;
  readonly scale: SynthRow[];
  readonly incremental: IncrementalSynth;
  /** Absent in results measured before it was. */
  readonly capped?: CappedSynth;
  /** Absent in results measured before it was. */
  readonly youngCapped?: YoungCappedSynth;
}

const ROOT = path.join(__dirname, '..');
const JITI = path.join(ROOT, 'node_modules', '.bin', 'jiti');
const CHILD = path.join(__dirname, 'synth-child.ts');

type Measurement = { ms: number; cpuMs: number; maxRssMb: number; files: number; stdout?: string };

function run(...args: string[]): Measurement {
  return args[0] === 'cli' ? runKrt(args[1]!, args.slice(2)) : runWith({}, ...args);
}

/** The built CLI (`dist/`, or another build of it: KRT_BENCH_DIST). */
const DIST = process.env.KRT_BENCH_DIST ?? path.join(ROOT, 'dist');
const USAGE = path.join(__dirname, 'process-usage.cjs');

/**
 * `krt ARGS` in DIR as a user runs it: a Node process of its own (this one's Node), timed
 * from its start to its exit, so that loading krt, its libraries and the topology loader
 * counts; the process reports its CPU time and peak RSS through a preloaded module.
 */
function runKrt(dir: string, args: readonly string[]): Measurement {
  const usageFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'krt-bench-usage-')), 'usage.json');
  const started = process.hrtime.bigint();
  const stdout = execFileSync(process.execPath, ['-r', USAGE, path.join(DIST, 'cli', 'main.js'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, KRT_BENCH_USAGE_FILE: usageFile },
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { cpuMs: number; maxRssMb: number };
  rmSync(path.dirname(usageFile), { recursive: true, force: true });
  return { ms, ...usage, files: stdout.split('\n').filter((l) => l.startsWith('wrote')).length };
}

/** A run that must be refused (exit code 1). */
function refused(...args: string[]): void {
  try {
    execFileSync(process.execPath, [path.join(DIST, 'cli', 'main.js'), ...args.slice(2)], { cwd: args[1], stdio: 'ignore' });
  } catch {
    return;
  }
  throw new Error(`krt ${args.join(' ')} was not refused`);
}

function runWith(env: NodeJS.ProcessEnv, ...args: string[]): Measurement {
  return JSON.parse(execFileSync(JITI, [CHILD, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...env } })) as Measurement;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** krt and the floor alternate, three rounds each size; medians. */
function benchScale(sizes: readonly number[], rounds: number): SynthRow[] {
  return sizes.map((consumers) => {
    const krt: Measurement[] = [];
    const floor: Measurement[] = [];
    for (let r = 0; r < rounds; r++) {
      krt.push(run('krt', String(consumers)));
      floor.push(run('floor', String(consumers)));
    }
    return {
      consumers,
      krtMs: median(krt.map((x) => x.ms)),
      floorMs: median(floor.map((x) => x.ms)),
      krtRssMb: median(krt.map((x) => x.maxRssMb)),
      floorRssMb: median(floor.map((x) => x.maxRssMb)),
      files: krt[0]!.files,
    };
  });
}

const fileName = (index: number) => `t${String(index).padStart(3, '0')}.ts`;

/** A topology file as a team writes it: its own consumers, topics and principals. */
function topologySource(index: number, consumers: number): string {
  const name = `t${String(index).padStart(3, '0')}`;
  const consumerList = Array.from({ length: consumers }, (_, i) =>
    [
      '    {',
      `      name: '${name}-consumer-${i}',`,
      `      topic: { name: '${name}.topic-${i}', partitions: 12 },`,
      `      principal: 'User:${name}-service-${i % 3}',`,
      `      ladder: ['10s', '1m', '10m', '1h'],`,
      `      criticality: '${(['money', 'standard', 'analytics'] as const)[i % 3]}',`,
      '    },',
    ].join('\n'),
  ).join('\n');
  return [
    "import { defineTopology } from 'kafka-retry-topology';",
    '',
    'export default defineTopology({',
    `  name: '${name}',`,
    `  owner: { team: 'team-${index}', onCall: '#${name}-oncall' },`,
    "  runbookBaseUrl: 'https://runbooks.example.com/kafka',",
    '  consumers: [',
    consumerList,
    '  ],',
    '});',
    '',
  ].join('\n');
}

function repository(files: number, consumersPerFile: number): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-bench-repo-'));
  mkdirSync(path.join(dir, 'topologies'));
  for (let i = 0; i < files; i++) writeFileSync(path.join(dir, 'topologies', fileName(i)), topologySource(i, consumersPerFile));
  return dir;
}

/**
 * (a) one topology synthesized alone, (b) `--check` of the unchanged repository, (c)
 * synth after one topology changed: each through the built CLI in a process of its own,
 * rounds alternating; medians.
 */
export function benchIncremental(files: number, consumersPerFile: number, rounds: number): IncrementalSynth {
  if (!process.env.KRT_BENCH_DIST) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  const repo = repository(files, consumersPerFile);
  try {
    const full = run('cli', repo, 'synth');
    const alone: Measurement[] = [];
    const check: Measurement[] = [];
    const checkNoCache: Measurement[] = [];
    const edit: Measurement[] = [];
    const afterOneFile: Measurement[] = [];
    const afterRefused: Measurement[] = [];
    for (let r = 0; r < rounds; r++) {
      const single = repository(0, 0);
      writeFileSync(path.join(single, 'topologies', fileName(0)), topologySource(0, consumersPerFile));
      alone.push(run('cli', single, 'synth'));
      rmSync(single, { recursive: true, force: true });
      check.push(run('cli', repo, 'synth', '--check'));
      checkNoCache.push(run('cli', repo, 'synth', '--check', '--no-cache'));
      // A different file each round, its on-call channel changed: its runbooks, alerts and model change.
      const edited = path.join(repo, 'topologies', fileName((r * 37) % files));
      writeFileSync(edited, readFileSync(edited, 'utf8').replace(/-oncall'/, `-oncall-${r}'`));
      edit.push(run('cli', repo, 'synth'));
      // What used to empty the cache: a synth of one file into another folder, and a refused synth (a topology removed).
      run('cli', repo, 'synth', path.join('topologies', fileName(1)), '--out', path.join(repo, `single-${r}`));
      afterOneFile.push(run('cli', repo, 'synth'));
      const removed = path.join(repo, 'topologies', fileName(2));
      const text = readFileSync(removed, 'utf8');
      rmSync(removed);
      refused('cli', repo, 'synth');
      writeFileSync(removed, text);
      afterRefused.push(run('cli', repo, 'synth'));
    }
    return {
      topologyFiles: files,
      consumersPerFile,
      aloneMs: median(alone.map((x) => x.ms)),
      fullMs: full.ms,
      checkMs: median(check.map((x) => x.ms)),
      checkNoCacheMs: median(checkNoCache.map((x) => x.ms)),
      editMs: median(edit.map((x) => x.ms)),
      aloneCpuMs: median(alone.map((x) => x.cpuMs)),
      editCpuMs: median(edit.map((x) => x.cpuMs)),
      afterOneFileMs: median(afterOneFile.map((x) => x.ms)),
      afterRefusedMs: median(afterRefused.map((x) => x.ms)),
      checkRssMb: median(check.map((x) => x.maxRssMb)),
      editRssMb: median(edit.map((x) => x.maxRssMb)),
      fullRssMb: full.maxRssMb,
    };
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

/** The largest size again under `NODE_OPTIONS=--max-old-space-size`: does it fit, and at what cost in time? */
function benchCapped(consumers: number, maxOldSpaceMb: number, rounds: number): CappedSynth {
  const runs = Array.from({ length: rounds }, () => runWith({ NODE_OPTIONS: `--max-old-space-size=${maxOldSpaceMb}` }, 'krt', String(consumers)));
  return { consumers, maxOldSpaceMb, ms: median(runs.map((x) => x.ms)), rssMb: median(runs.map((x) => x.maxRssMb)) };
}

/** The largest size again under `NODE_OPTIONS=--max-semi-space-size`: how much of the peak is the young generation, and at what cost in time? */
function benchYoungCapped(consumers: number, maxSemiSpaceMb: number, rounds: number): YoungCappedSynth {
  const runs = Array.from({ length: rounds }, () => runWith({ NODE_OPTIONS: `--max-semi-space-size=${maxSemiSpaceMb}` }, 'krt', String(consumers)));
  return { consumers, maxSemiSpaceMb, ms: median(runs.map((x) => x.ms)), rssMb: median(runs.map((x) => x.maxRssMb)) };
}

export function benchSynth(sizes: readonly number[] = [10, 100, 1000], rounds = 3): SynthResults {
  return {
    date: new Date().toISOString().slice(0, 10),
    scale: benchScale(sizes, rounds),
    incremental: benchIncremental(100, 10, rounds),
    capped: benchCapped(Math.max(...sizes), 256, rounds),
    youngCapped: benchYoungCapped(Math.max(...sizes), 16, rounds),
  };
}
