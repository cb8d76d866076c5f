import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import fc from 'fast-check';
import { fileTree, ScratchProject } from './helpers/project';

/**
 * The synth cache must never change what synth does: the same repository, edited the
 * same way, synthesized with the cache and without it, must give the same exit codes
 * and byte-identical output after every step. Bounded so that `npm test` stays fast;
 * KRT_PROPERTY_RUNS raises it. A failure prints its seed and the shrunk edit sequence.
 */
const RUNS = { numRuns: Number(process.env.KRT_PROPERTY_RUNS ?? 4) };
jest.setTimeout(600_000);

/**
 * The environment topology files see: the loader runs them in Node's own context, not in
 * jest's sandbox, whose `process.env` is a copy.
 */
const loaderEnv = (vm.runInThisContext('process') as NodeJS.Process).env;

/** A consumer of the corpus: its topic keeps its first topology's name through moves and renames. */
interface Consumer {
  readonly name: string;
  readonly topic: string;
  /** Declares a move from another topology (cleared by a `settle` step, as after the apply). */
  previousTopology?: string;
}

/** A topology file of the corpus, and which helper modules it imports. */
interface Topology {
  /** The file name under topologies/ (it keeps it through a rename of the topology). */
  readonly file: string;
  name: string;
  /** Declares a rename (cleared by a `settle` step). */
  previousName?: string;
  readonly consumers: Consumer[];
  onCall: string;
  /** Imports its partitions from `lib/team's-sizes.ts`: a path with a quote in it. */
  readonly sizes: boolean;
  /** Imports its team from `topologies/shared/owner.ts`, a linked folder whose `..` leads to `vendor/`. */
  readonly owner: boolean;
  /**
   * Where its on-call channel comes from, besides its own text: a data file read with
   * node:fs (`data`), the environment (`env`), or what topologies/a-shared.ts, loaded
   * before it, left on Math (`shared`).
   */
  readonly reads?: 'data' | 'env' | 'shared';
  /** topologies/<file>.ts is a symbolic link to specs/team/<file>.ts; its `../lib/link-team` resolves from the link. */
  readonly linked?: boolean;
  decommissioned: boolean;
}

interface NewTopology {
  readonly consumers: number;
  readonly sizes: boolean;
  readonly owner: boolean;
  readonly reads?: 'data' | 'env' | 'shared';
  readonly linked?: boolean;
}

type Step =
  | { kind: 'edit-spec'; index: number; onCall: string }
  | { kind: 'edit-sizes'; partitions: number }
  | { kind: 'edit-owner'; team: string }
  | { kind: 'edit-decoy'; team: string }
  | { kind: 'add'; consumers: number; sizes: boolean; owner: boolean; reads?: 'data' | 'env' | 'shared'; linked?: boolean }
  | { kind: 'edit-data'; onCall: string }
  | { kind: 'edit-env'; onCall: string }
  | { kind: 'edit-shared'; onCall: string }
  | { kind: 'edit-link-team'; team: string }
  | { kind: 'move'; from: number; to: number }
  | { kind: 'rename'; index: number }
  | { kind: 'settle' }
  | { kind: 'edit-generated'; index: number }
  | { kind: 'delete-generated'; index: number }
  | { kind: 'decommission'; index: number }
  | { kind: 'remove'; index: number }
  | { kind: 'synth-out' }
  | { kind: 'synth-one'; index: number };

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta');
const readsArb = fc.constantFrom(undefined, 'data' as const, 'env' as const, 'shared' as const);
const topologyArb = fc.record({ consumers: fc.integer({ min: 1, max: 2 }), sizes: fc.boolean(), owner: fc.boolean(), reads: readsArb, linked: fc.boolean() });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('edit-spec' as const), index: fc.nat(), onCall: word }),
  fc.record({ kind: fc.constant('edit-sizes' as const), partitions: fc.constantFrom(6, 12, 24) }),
  fc.record({ kind: fc.constant('edit-owner' as const), team: word }),
  fc.record({ kind: fc.constant('edit-decoy' as const), team: word }),
  fc.record({ kind: fc.constant('add' as const), consumers: fc.integer({ min: 1, max: 2 }), sizes: fc.boolean(), owner: fc.boolean(), reads: readsArb, linked: fc.boolean() }),
  fc.record({ kind: fc.constant('edit-data' as const), onCall: word }),
  fc.record({ kind: fc.constant('edit-env' as const), onCall: word }),
  fc.record({ kind: fc.constant('edit-shared' as const), onCall: word }),
  fc.record({ kind: fc.constant('edit-link-team' as const), team: word }),
  fc.record({ kind: fc.constant('move' as const), from: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('rename' as const), index: fc.nat() }),
  fc.constant({ kind: 'settle' as const }),
  fc.record({ kind: fc.constant('edit-generated' as const), index: fc.nat() }),
  fc.record({ kind: fc.constant('delete-generated' as const), index: fc.nat() }),
  fc.record({ kind: fc.constant('decommission' as const), index: fc.nat() }),
  fc.record({ kind: fc.constant('remove' as const), index: fc.nat() }),
  fc.constant({ kind: 'synth-out' as const }),
  fc.record({ kind: fc.constant('synth-one' as const), index: fc.nat() }),
);

/** The module a topology's on-call channel comes from, by what it reads. */
const READERS = { data: '../lib/reads-data', env: '../lib/reads-env', shared: '../lib/reads-shared' } as const;

function topologyText(t: Topology): string {
  const imports = [
    "import { defineTopology } from 'kafka-retry-topology';",
    ...(t.sizes ? ['import { partitions } from "../lib/team\'s-sizes";'] : []),
    ...(t.owner ? ["import { team } from './shared/owner';"] : t.linked ? ["import { team } from '../lib/link-team';"] : []),
    ...(t.reads ? [`import { onCall } from '${READERS[t.reads]}';`] : []),
  ];
  const consumers = t.consumers.map((c) =>
    [
      '    {',
      `      name: '${c.name}',`,
      ...(c.previousTopology ? [`      previousTopology: '${c.previousTopology}',`] : []),
      `      topic: { name: '${c.topic}', partitions: ${t.sizes ? 'partitions' : '12'} },`,
      `      principal: 'User:${c.name}',`,
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
    ...(t.previousName ? [`  previousName: '${t.previousName}',`] : []),
    `  owner: { team: ${t.owner || t.linked ? 'team' : `'${t.file}-team'`}, onCall: ${t.reads ? 'onCall' : `'#${t.onCall}'`} },`,
    "  runbookBaseUrl: 'https://runbooks.example.com/kafka',",
    '  consumers: [',
    ...consumers,
    '  ],',
    '});',
    '',
  ].join('\n');
}


/** One repository of the corpus, with the same files in two projects: one synthesized with the cache, one without. */
class Twins {
  readonly cached = new ScratchProject(false);
  readonly reference = new ScratchProject(false);
  readonly topologies: Topology[] = [];
  private counter = 0;
  private outs = 0;
  /** The exit code of every cached synth (not --check, which says 1 after any edit), in order. */
  readonly codes: number[] = [];

  constructor(initial: readonly NewTopology[]) {
    loaderEnv.KRT_DIFF_ON_CALL = '#env-alpha';
    for (const project of this.projects) {
      mkdirSync(project.path('specs/team'), { recursive: true });
      mkdirSync(project.path('specs/lib'));
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
    // Read at load time, by routes no list of names could foresee: a data file, the environment, a property another file left on Math.
    this.write('lib/on-call.txt', '#data-alpha\n');
    // require, not import: under jest the loader cannot import a built-in module (no vm modules there).
    this.write('lib/reads-data.ts', "const { readFileSync } = require('node:fs') as typeof import('node:fs');\nexport const onCall = readFileSync(`${__dirname}/on-call.txt`, 'utf8').trim();\n");
    this.write('lib/reads-env.ts', "const env = (globalThis as unknown as { process: { env: Record<string, string> } }).process.env;\nexport const onCall = env.KRT_DIFF_ON_CALL ?? '#unset';\n");
    this.write('lib/reads-shared.ts', "export const onCall = (Math as unknown as { krtDiffOnCall?: string }).krtDiffOnCall ?? '#none';\n");
    this.write('lib/sets-shared.ts', "(Math as unknown as { krtDiffOnCall?: string }).krtDiffOnCall = '#shared-alpha';\nexport const onCall = '#shared-setter';\n");
    // Sorted before every t<n>.ts, so it is loaded first: it sets what `shared` topologies read.
    this.write('topologies/a-shared.ts', topologyText({ file: 'a-shared', name: 'a-shared', consumers: [{ name: 'a-shared-consumer', topic: 'a-shared.topic' }], onCall: 'shared-owner', sizes: false, owner: false, reads: undefined, decommissioned: false }).replace("import { defineTopology } from 'kafka-retry-topology';", "import { defineTopology } from 'kafka-retry-topology';\nimport '../lib/sets-shared';"));
    // A linked topology's '../lib/link-team' is lib/link-team.ts (from the link); specs/lib/link-team.ts, beside the real file, is a decoy.
    this.write('lib/link-team.ts', "export const team = 'linked-alpha';\n");
    this.write('specs/lib/link-team.ts', "export const team = 'decoy';\n");
    for (const t of initial) this.add(t);
  }

  get projects(): ScratchProject[] {
    return [this.cached, this.reference];
  }

  write(file: string, content: string): void {
    for (const project of this.projects) project.write(file, content);
  }

  add(t: NewTopology): void {
    const file = `t${this.counter++}`;
    const consumers = Array.from({ length: t.consumers }, (_, i) => ({ name: `${file}-consumer-${i}`, topic: `${file}.topic-${i}` }));
    const topology: Topology = { ...t, file, name: file, consumers, onCall: 'alpha', decommissioned: false };
    this.topologies.push(topology);
    if (t.linked) for (const project of this.projects) symlinkSync(path.join('..', 'specs', 'team', `${file}.ts`), project.path(`topologies/${file}.ts`));
    this.save(topology);
  }

  save(t: Topology): void {
    this.write(t.linked ? `specs/team/${t.file}.ts` : `topologies/${t.file}.ts`, topologyText(t));
  }

  remove(index: number): Topology {
    const [t] = this.topologies.splice(index, 1);
    for (const project of this.projects) rmSync(project.path(`topologies/${t!.file}.ts`));
    return t!;
  }

  /** Puts back a topology that `remove` took out. */
  restore(t: Topology): void {
    this.topologies.push(t);
    if (t.linked) for (const project of this.projects) symlinkSync(path.join('..', 'specs', 'team', `${t.file}.ts`), project.path(`topologies/${t.file}.ts`));
    this.save(t);
  }

  /** A generated file of both projects, by an index into the cached project's runbooks (sorted); undefined when there is none. */
  private runbook(index: number): string | undefined {
    const dir = this.cached.path('generated/runbooks');
    if (!existsSync(dir)) return undefined;
    const names = readdirSync(dir).sort();
    return names.length > 0 ? `generated/runbooks/${names[index % names.length]}` : undefined;
  }

  /** `krt ...args` in both projects, the reference with --no-cache: exit codes and the folder `out` must agree. */
  async krt(out: string, ...args: string[]): Promise<number> {
    const withCache = await this.cached.krt(...args);
    if (!args.includes('--check')) this.codes.push(withCache.code);
    const without = await this.reference.krt(...args, '--no-cache');
    const context = `krt ${args.join(' ')}\n${withCache.stderr}${without.stderr}`;
    expect({ context, code: withCache.code, stderr: withCache.stderr }).toEqual({ context, code: without.code, stderr: without.stderr });
    expect(fileTree(this.cached.path(out))).toEqual(fileTree(this.reference.path(out)));
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
      case 'edit-data':
        this.write('lib/on-call.txt', `#data-${step.onCall}\n`);
        break;
      case 'edit-env':
        loaderEnv.KRT_DIFF_ON_CALL = `#env-${step.onCall}`;
        break;
      case 'edit-shared':
        this.write('lib/sets-shared.ts', `(Math as unknown as { krtDiffOnCall?: string }).krtDiffOnCall = '#shared-${step.onCall}';\nexport const onCall = '#shared-setter';\n`);
        break;
      case 'edit-link-team':
        this.write('lib/link-team.ts', `export const team = 'linked-${step.team}';\n`);
        break;
      case 'move': {
        // The last consumer of one topology to another, declared: the old stack forgets its topics, the new one imports them.
        const [from, to] = [pick(step.from), pick(step.to)];
        if (!from || !to || from === to || from.consumers.length < 2) return;
        const consumer = from.consumers.pop()!;
        to.consumers.push({ ...consumer, previousTopology: from.name });
        this.save(from);
        this.save(to);
        break;
      }
      case 'rename': {
        // A topology renamed in its file, declared: its stack hands everything over to the new name's.
        const t = pick(step.index);
        if (!t || t.previousName) return;
        t.previousName = t.name;
        t.name = `${t.name}r`;
        this.save(t);
        break;
      }
      case 'settle': {
        // Applied: the declarations go, as the docs say to do; models of files whose text did not change change with them.
        // A former stack's apply revoked the old name's own ACLs, which krt records until told so (--applied).
        const applied = [...new Set(this.topologies.flatMap((t) => [...(t.previousName ? [t.previousName] : []), ...t.consumers.flatMap((c) => (c.previousTopology ? [c.previousTopology] : []))]))];
        for (const t of this.topologies) {
          delete t.previousName;
          for (const c of t.consumers) delete c.previousTopology;
          this.save(t);
        }
        if (applied.length > 0) {
          await this.synth('--applied', ...applied);
          return;
        }
        break;
      }
      case 'edit-generated': {
        const file = this.runbook(step.index);
        if (!file) return;
        const edited = `${readFileSync(this.cached.path(file), 'utf8')}\nedited by hand\n`;
        for (const project of this.projects) writeFileSync(project.path(file), edited);
        break;
      }
      case 'delete-generated': {
        const file = this.runbook(step.index);
        if (!file) return;
        for (const project of this.projects) rmSync(project.path(file));
        break;
      }
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
        this.restore(removed);
        break;
      }
      case 'synth-out':
        await this.synth('--out', `out-${this.outs++ % 2}`);
        return;
      case 'synth-one': {
        const t = pick(step.index);
        if (t) await this.synth(`topologies/${t.file}.ts`, '--out', `single-${t.file}`);
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
    ['a consumer moved to another topology, then the declaration removed after the apply', [{ kind: 'move', from: 1, to: 0 }, { kind: 'settle' }]],
    ['a topology renamed, then the declaration removed after the apply', [{ kind: 'rename', index: 1 }, { kind: 'settle' }]],
    ['a data file a helper reads with node:fs', [{ kind: 'edit-data', onCall: 'beta' }]],
    ['the environment a helper reads', [{ kind: 'edit-env', onCall: 'beta' }]],
    ['what another topology file leaves on Math', [{ kind: 'edit-shared', onCall: 'beta' }]],
    ['a helper of a linked topology file, found from the link', [{ kind: 'edit-link-team', team: 'beta' }]],
    ['a generated file, by hand, then deleted', [{ kind: 'edit-generated', index: 1 }, { kind: 'delete-generated', index: 2 }]],
  ] as Array<[string, Step[]]>)('agrees after an edit of %s', async (_what, steps) => {
    const twins = new Twins([
      { consumers: 1, sizes: true, owner: true, reads: 'data' },
      { consumers: 2, sizes: false, owner: false, reads: 'shared', linked: true },
      { consumers: 1, sizes: false, owner: false, reads: 'env' },
    ]);
    try {
      await twins.synth();
      for (const step of steps) await twins.apply(step);
      // Agreeing on a refusal proves nothing about the cache: every run here but a refused removal is accepted.
      if (!steps.some((s) => s.kind === 'remove')) expect(twins.codes).toEqual(twins.codes.map(() => 0));
    } finally {
      twins.dispose();
    }
  });
});
