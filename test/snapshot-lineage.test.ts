import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { BUILT_FROM_FILE, descendsFrom, LINEAGE_LIMIT, lineageFile, parseLineage, readBuiltFrom, recordBuild } from '../src/writer/snapshot-lineage';
import type { Lineage } from '../src/writer/snapshot-lineage';
import { contentHash } from '../src/writer/write-generated';
import { propertyRuns } from './runtime/fault-runs';

/** A committed output folder as far as the lineage goes: the snapshot's text and the lineage file's. */
interface Folder {
  readonly snapshot: string;
  readonly lineage: string | undefined;
}

/** What `krt synth` leaves when it writes `snapshot` into `folder`. */
function synth(folder: Folder | undefined, snapshot: string): Folder {
  const file = lineageFile(folder && contentHash(folder.snapshot), folder?.lineage === undefined ? undefined : parseLineage(folder.lineage), snapshot);
  return { snapshot, lineage: file?.content };
}

/** Whether `krt cdktf` lets `folder` through without judging it against a build made from `builtFrom`'s snapshot. */
function vouched(folder: Folder, builtFrom: Folder | undefined): boolean {
  return descendsFrom(contentHash(folder.snapshot), folder.lineage === undefined ? undefined : parseLineage(folder.lineage), builtFrom && contentHash(builtFrom.snapshot));
}

describe('the chain of accepted synths', () => {
  it('is not written by the first synth, which judged against nothing', () => {
    expect(synth(undefined, 'a').lineage).toBeUndefined();
  });

  it('names, after each synth that changed the snapshot, every snapshot judged against, oldest first', () => {
    const a = synth(undefined, 'a');
    const c = synth(synth(a, 'b'), 'c');
    expect(parseLineage(c.lineage!)).toEqual({ snapshot: contentHash('c'), judgedAgainst: [contentHash('a'), contentHash('b')] });
  });

  it('stays as it is when a synth writes the same snapshot, so krt synth --check finds nothing to change', () => {
    const b = synth(synth(undefined, 'a'), 'b');
    expect(synth(b, 'b')).toEqual(b);
  });

  it('is dropped, not kept, when it belongs to another snapshot (a partial revert, a merge that kept one side\'s lineage)', () => {
    const b = synth(synth(undefined, 'a'), 'b');
    expect(synth({ snapshot: 'x', lineage: b.lineage }, 'x').lineage).toBeUndefined();
    expect(parseLineage(synth({ snapshot: 'x', lineage: b.lineage }, 'y').lineage!)).toEqual({ snapshot: contentHash('y'), judgedAgainst: [contentHash('x')] });
  });

  it(`remembers the last ${LINEAGE_LIMIT} snapshots: a build further behind is judged directly`, () => {
    const first = synth(undefined, 's0');
    let folder = first;
    for (let i = 1; i <= LINEAGE_LIMIT + 1; i++) folder = synth(folder, `s${i}`);
    expect(parseLineage(folder.lineage!)!.judgedAgainst).toHaveLength(LINEAGE_LIMIT);
    expect(vouched(folder, first)).toBe(false);
    expect(vouched(folder, synth(undefined, 's1'))).toBe(true);
  });

  it('reads text that is not a lineage (conflict markers, another shape, short hashes) as none', () => {
    expect(parseLineage('<<<<<<< HEAD\n{}')).toBeUndefined();
    expect(parseLineage('null')).toBeUndefined();
    expect(parseLineage(JSON.stringify({ snapshot: 'abc', judgedAgainst: [] }))).toBeUndefined();
    expect(parseLineage(JSON.stringify({ snapshot: contentHash('a'), judgedAgainst: ['abc'] }))).toBeUndefined();
    expect(parseLineage(JSON.stringify({ snapshot: contentHash('a'), judgedAgainst: [contentHash('b')] }))).toEqual<Lineage>({ snapshot: contentHash('a'), judgedAgainst: [contentHash('b')] });
  });

  it('vouches for nothing without a record of what the build was made from', () => {
    const b = synth(synth(undefined, 'a'), 'b');
    expect(vouched(b, undefined)).toBe(false);
  });
});

/**
 * A history of the output folder: synths (each from the folder as it is), git reverts (the
 * whole folder as an earlier commit had it), a revert of the snapshot alone, the lineage
 * lost, and cdktf builds. Snapshots are drawn from few texts, so a later synth may write one
 * an earlier synth wrote (a retention changed and changed back).
 */
type Step =
  | { readonly kind: 'synth'; readonly snapshot: string }
  | { readonly kind: 'revert'; readonly to: number }
  | { readonly kind: 'revert-snapshot-only'; readonly to: number }
  | { readonly kind: 'lineage-lost' }
  | { readonly kind: 'build' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: 5 }).map((n) => ({ kind: 'synth' as const, snapshot: `model ${n}` })) },
  { weight: 1, arbitrary: fc.nat().map((to) => ({ kind: 'revert' as const, to })) },
  { weight: 1, arbitrary: fc.nat().map((to) => ({ kind: 'revert-snapshot-only' as const, to })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'lineage-lost' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'build' as const }) },
);

describe('krt cdktf, judging the committed output against its last build by the chain', () => {
  it('lets through only a snapshot that accepted synths lead to from the one it built, and every such one since the build when nothing was reverted', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
        let folder = synth(undefined, 'model 0');
        const commits: Folder[] = [folder];
        /** Every accepted synth that changed the snapshot, as an edge between snapshot texts. */
        const edges = new Map<string, Set<string>>();
        let built: Folder | undefined;
        /** Since the build: only synths (then the chain must vouch), and how many changed the snapshot. */
        let onlySynthsSince = false;
        let changesSince = 0;
        for (const s of steps) {
          if (s.kind === 'synth') {
            const next = synth(folder, s.snapshot);
            if (next.snapshot !== folder.snapshot) {
              edges.set(folder.snapshot, (edges.get(folder.snapshot) ?? new Set()).add(next.snapshot));
              changesSince++;
            }
            folder = next;
          } else if (s.kind === 'revert') {
            folder = commits[s.to % commits.length]!;
            onlySynthsSince = false;
          } else if (s.kind === 'revert-snapshot-only') {
            folder = { snapshot: commits[s.to % commits.length]!.snapshot, lineage: folder.lineage };
            onlySynthsSince = false;
          } else if (s.kind === 'lineage-lost') {
            folder = { snapshot: folder.snapshot, lineage: undefined };
            onlySynthsSince = false;
          } else {
            built = folder;
            onlySynthsSince = true;
            changesSince = 0;
          }
          commits.push(folder);
          if (!built) continue;
          const through = vouched(folder, built);
          if (through) expect(reachable(edges, built.snapshot, folder.snapshot)).toBe(true);
          if (onlySynthsSince && changesSince <= LINEAGE_LIMIT) expect(through).toBe(true);
        }
      }),
      propertyRuns(500),
    );
  });
});

/** Whether accepted synths lead from snapshot `from` to snapshot `to` (in none or more steps). */
function reachable(edges: ReadonlyMap<string, ReadonlySet<string>>, from: string, to: string): boolean {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (at === to) return true;
    for (const next of edges.get(at) ?? []) if (!seen.has(next)) queue.push(next), seen.add(next);
  }
  return false;
}

describe('the record of a cdktf build', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'krt-built-from-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names the committed snapshot the build was made from', () => {
    recordBuild(dir, contentHash('a'), () => undefined);
    expect(readBuiltFrom(dir)).toBe(contentHash('a'));
  });

  it('names none when the build fails half-way, so the next one is judged rather than waved through on the older build\'s word', () => {
    recordBuild(dir, contentHash('a'), () => undefined);
    expect(() => recordBuild(dir, contentHash('b'), () => {
      throw new Error('disk full');
    })).toThrow('disk full');
    expect(existsSync(path.join(dir, BUILT_FROM_FILE))).toBe(false);
    expect(readBuiltFrom(dir)).toBeUndefined();
  });

  it('reads a record that is not a SHA-256 as none', () => {
    recordBuild(dir, 'not a hash', () => undefined);
    expect(readFileSync(path.join(dir, BUILT_FROM_FILE), 'utf8')).toBe('not a hash\n');
    expect(readBuiltFrom(dir)).toBeUndefined();
  });
});
