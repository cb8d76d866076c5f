import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { ScratchProject } from './helpers/project';

/**
 * The synth cache must never change what synth does: the same repository, edited the
 * same way, synthesized with the cache and without it, must give the same exit codes
 * and byte-identical output after every step. Bounded so that `npm test` stays fast;
 * KRT_PROPERTY_RUNS raises it. A failure prints its seed and the shrunk edit sequence.
 */
const RUNS = { numRuns: Number(process.env.KRT_PROPERTY_RUNS ?? 4) };
jest.setTimeout(600_000);

/** A topology file of the corpus, and which helper modules it imports. */
interface Topology {
  readonly name: string;
  readonly consumers: number;
  onCall: string;
  /** Imports its partitions from `lib/team's-sizes.ts`: a path with a quote in it. */
  readonly sizes: boolean;
  /** Imports its team from `topologies/shared/owner.ts`, a linked folder whose `..` leads to `vendor/`. */
  readonly owner: boolean;
  decommissioned: boolean;
}

type Step =
  | { kind: 'edit-spec'; index: number; onCall: string }
  | { kind: 'edit-sizes'; partitions: number }
  | { kind: 'edit-owner'; team: string }
  | { kind: 'edit-decoy'; team: string }
  | { kind: 'add'; consumers: number; sizes: boolean; owner: boolean }
  | { kind: 'decommission'; index: number }
  | { kind: 'remove'; index: number }
  | { kind: 'synth-out' }
  | { kind: 'synth-one'; index: number };

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta');
const topologyArb = fc.record({ consumers: fc.integer({ min: 1, max: 2 }), sizes: fc.boolean(), owner: fc.boolean() });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('edit-spec' as const), index: fc.nat(), onCall: word }),
  fc.record({ kind: fc.constant('edit-sizes' as const), partitions: fc.constantFrom(6, 12, 24) }),
  fc.record({ kind: fc.constant('edit-owner' as const), team: word }),
  fc.record({ kind: fc.constant('edit-decoy' as const), team: word }),
  fc.record({ kind: fc.constant('add' as const), consumers: fc.integer({ min: 1, max: 2 }), sizes: fc.boolean(), owner: fc.boolean() }),
  fc.record({ kind: fc.constant('decommission' as const), index: fc.nat() }),
  fc.record({ kind: fc.constant('remove' as const), index: fc.nat() }),
  fc.constant({ kind: 'synth-out' as const }),
  fc.record({ kind: fc.constant('synth-one' as const), index: fc.nat() }),
);

function topologyText(t: Topology): string {
  const imports = [
    "import { defineTopology } from 'kafka-retry-topology';",
    ...(t.sizes ? ['import { partitions } from "../lib/team\'s-sizes";'] : []),
    ...(t.owner ? ["import { team } from './shared/owner';"] : []),
  ];
  const consumers = Array.from({ length: t.consumers }, (_, i) =>
    [
      '    {',
      `      name: '${t.name}-consumer-${i}',`,
      `      topic: { name: '${t.name}.topic-${i}', partitions: ${t.sizes ? 'partitions' : '12'} },`,
      `      principal: 'User:${t.name}',`,
      "      ladder: ['10s', '1m'],",
      "      criticality: 'standard',",
      ...(t.decommissioned ? ['      decommissioned: true,'] : []),
      '    },',
    ].join('\n'),
  );
  return [
    ...imports,
    '',
    'export default defineTopology({',
    `  name: '${t.name}',`,
    `  owner: { team: ${t.owner ? 'team' : `'${t.name}-team'`}, onCall: '#${t.onCall}' },`,
    "  runbookBaseUrl: 'https://runbooks.example.com/kafka',",
    '  consumers: [',
    ...consumers,
    '  ],',
    '});',
    '',
  ].join('\n');
}

/** Every file under `dir`, by path relative to it, with its content; {} when there is no such folder. */
function tree(dir: string): Record<string, string> {
  let entries;
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch {
    return {};
  }
  return Object.fromEntries(
    entries
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name))
      .sort()
      .map((file) => [path.relative(dir, file), readFileSync(file, 'utf8')]),
  );
}

/** One repository of the corpus, with the same files in two projects: one synthesized with the cache, one without. */
class Twins {
  readonly cached = new ScratchProject(false);
  readonly reference = new ScratchProject(false);
  readonly topologies: Topology[] = [];
  private counter = 0;
  private outs = 0;

  constructor(initial: ReadonlyArray<{ consumers: number; sizes: boolean; owner: boolean }>) {
    for (const project of this.projects) {
      mkdirSync(project.path('topologies'));
      mkdirSync(project.path('lib'));
      mkdirSync(project.path('topologies/lib'));
      mkdirSync(project.path('vendor/shared'), { recursive: true });
      mkdirSync(project.path('vendor/lib'));
      project.write('vendor/shared/owner.ts', "export { team } from '../lib/owner';\n");
      // The loader follows `..` from the real folder (vendor/); topologies/lib/owner.ts is a decoy it never loads.
      symlinkSync(path.join('..', 'vendor', 'shared'), project.path('topologies/shared'));
    }
    this.write("lib/team's-sizes.ts", 'export const partitions = 12;\n');
    this.write('vendor/lib/owner.ts', "export const team = 'owners';\n");
    this.write('topologies/lib/owner.ts', "export const team = 'decoy';\n");
    for (const t of initial) this.add(t);
  }

  get projects(): ScratchProject[] {
    return [this.cached, this.reference];
  }

  write(file: string, content: string): void {
    for (const project of this.projects) project.write(file, content);
  }

  add(t: { consumers: number; sizes: boolean; owner: boolean }): void {
    const topology = { ...t, name: `t${this.counter++}`, onCall: 'alpha', decommissioned: false };
    this.topologies.push(topology);
    this.save(topology);
  }

  save(t: Topology): void {
    this.write(`topologies/${t.name}.ts`, topologyText(t));
  }

  remove(index: number): Topology {
    const [t] = this.topologies.splice(index, 1);
    for (const project of this.projects) rmSync(project.path(`topologies/${t!.name}.ts`));
    return t!;
  }

  /** `krt ...args` in both projects, the reference with --no-cache: exit codes and the folder `out` must agree. */
  async krt(out: string, ...args: string[]): Promise<number> {
    const withCache = await this.cached.krt(...args);
    const without = await this.reference.krt(...args, '--no-cache');
    const context = `krt ${args.join(' ')}\n${withCache.stderr}${without.stderr}`;
    expect({ context, code: withCache.code, stderr: withCache.stderr }).toEqual({ context, code: without.code, stderr: without.stderr });
    expect(tree(this.cached.path(out))).toEqual(tree(this.reference.path(out)));
    return withCache.code;
  }

  /** `--check` first (it must not say ok over stale output), then a synth. */
  async synth(...args: string[]): Promise<number> {
    const outAt = args.indexOf('--out');
    const out = outAt >= 0 ? args[outAt + 1]! : 'generated';
    await this.krt(out, 'synth', '--check', ...args);
    return this.krt(out, 'synth', ...args);
  }

  async apply(step: Step): Promise<void> {
    const pick = (index: number) => this.topologies[index % this.topologies.length];
    switch (step.kind) {
      case 'edit-spec': {
        const t = pick(step.index);
        if (!t) return;
        t.onCall = step.onCall;
        this.save(t);
        break;
      }
      case 'edit-sizes':
        this.write("lib/team's-sizes.ts", `export const partitions = ${step.partitions};\n`);
        break;
      case 'edit-owner':
        this.write('vendor/lib/owner.ts', `export const team = '${step.team}';\n`);
        break;
      case 'edit-decoy':
        this.write('topologies/lib/owner.ts', `export const team = '${step.team}';\n`);
        break;
      case 'add':
        this.add(step);
        break;
      case 'decommission': {
        const t = pick(step.index);
        if (!t) return;
        t.decommissioned = true;
        this.save(t);
        break;
      }
      case 'remove': {
        // Refused unless it was decommissioned in the last synth (both projects must agree), then put back as a user would.
        if (this.topologies.length < 2) return;
        const removed = this.remove(step.index % this.topologies.length);
        if ((await this.synth()) === 0) return;
        this.topologies.push(removed);
        this.save(removed);
        break;
      }
      case 'synth-out':
        await this.synth('--out', `out-${this.outs++ % 2}`);
        return;
      case 'synth-one': {
        const t = pick(step.index);
        if (t) await this.synth(`topologies/${t.name}.ts`, '--out', `single-${t.name}`);
        return;
      }
    }
    await this.synth();
  }

  dispose(): void {
    for (const project of this.projects) project.remove();
  }
}

describe('krt synth with and without the cache', () => {
  it('gives the same exit codes and byte-identical output after every step of any edit sequence', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(topologyArb, { minLength: 1, maxLength: 3 }), fc.array(stepArb, { minLength: 1, maxLength: 6 }), async (initial, steps) => {
        const twins = new Twins(initial);
        try {
          await twins.synth();
          for (const step of steps) await twins.apply(step);
        } finally {
          twins.dispose();
        }
      }),
      RUNS,
    );
  });

  it.each([
    ['a helper imported by a path with a quote in it', [{ kind: 'edit-sizes', partitions: 24 }]],
    ['a helper reached through `..` in a linked folder', [{ kind: 'edit-owner', team: 'beta' }]],
    ['a file in the place the link path names but the loader never reads', [{ kind: 'edit-decoy', team: 'beta' }]],
    ['a synth of one file into another folder, then an edit', [{ kind: 'synth-one', index: 0 }, { kind: 'edit-spec', index: 1, onCall: 'beta' }]],
    ['a refused removal, then a decommission and a removal', [{ kind: 'remove', index: 0 }, { kind: 'add', consumers: 1, sizes: true, owner: true }, { kind: 'decommission', index: 0 }, { kind: 'remove', index: 0 }]],
  ] as Array<[string, Step[]]>)('agrees after an edit of %s', async (_what, steps) => {
    const twins = new Twins([
      { consumers: 1, sizes: true, owner: true },
      { consumers: 2, sizes: false, owner: false },
    ]);
    try {
      await twins.synth();
      for (const step of steps) await twins.apply(step);
    } finally {
      twins.dispose();
    }
  });
});
