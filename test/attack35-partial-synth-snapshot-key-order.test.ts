import { mkdirSync, rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * Attack 35 (class: output that depends on the path taken; `krt synth --check` must say up
 * to date right after any accepted synth).
 *
 * Scenario:
 *  1. a.ts (p, q decommissioned), b.ts (r), c.ts (s decommissioned). krt synth.
 *  2. q removed from a, c.ts deleted. krt synth: topology a (the first file, so the host of the
 *     kept stack 'c') now has both `handedOver` (kept c) and its own `mayHold` (q's topics), in
 *     that key order.
 *  3. b edited (consumer t added). `krt synth topologies/b.ts` (a partial synth, docs/cli.md).
 *  4. `krt synth --check`.
 *
 * Seen: step 4 exits 1, "differs generated/.krt-model.json" (also with --no-cache; a full
 * `krt synth` rewrites the snapshot). The two snapshots hold the same data; only the key order
 * of topology a differs: the partial synth writes "mayHold" before "handedOver", a full synth
 * after it. A CI that runs `krt synth --check` rejects a commit made with the documented
 * partial synth.
 *
 * At fault: in a partial synth topology a is the committed object (withUntouched), parsed
 * from the snapshot with `mayHold` last. src/plan/removed-stacks.ts withoutRemovedStacks
 * deletes `handedOver` (only kept stacks) and withRemovedStacks re-adds it with
 * `{ ...host, handedOver }`, so it lands after `mayHold`; from the compiled spec (full synth,
 * --check) `handedOver` is added first and withHeld (held-by-state.ts) appends `mayHold`.
 * Before this change no topology had its own `mayHold`, so the order could not differ.
 *
 * Fixed (session 44): the snapshot writes every topology's hand-overs and record last, in
 * one order (model-snapshot.ts inSnapshotOrder).
 *
 * Suggested fix: write the snapshot with a fixed key order (e.g. rebuild each topology with
 * `handedOver` and `mayHold` in fixed places, or sort keys in modelSnapshotFile), not the
 * order the path left.
 */

jest.setTimeout(180_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
});
afterEach(() => project.remove());

it('krt synth --check is up to date right after a partial synth while the kept stacks host has a record', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q', ', decommissioned: true')]));
  project.write('topologies/b.ts', topology('b', [consumer('r')]));
  project.write('topologies/c.ts', topology('c', [consumer('s', ', decommissioned: true')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  rmSync(project.path('topologies/c.ts'));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  expect(await project.krt('synth', '--check')).toMatchObject({ code: 0 });
  project.write('topologies/b.ts', topology('b', [consumer('r'), consumer('t')]));
  expect(await project.krt('synth', 'topologies/b.ts')).toMatchObject({ code: 0, stderr: '' });
  const check = await project.krt('synth', '--check');
  // Today: exit 1, " differs generated/.krt-model.json" (mayHold and handedOver of a swapped).
  expect(check.stderr).not.toContain('differs');
  expect(check.code).toBe(0);
});
