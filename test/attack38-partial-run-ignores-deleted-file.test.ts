import { mkdirSync, rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * Attack 38, finding 2 (class: a partial run and a full run disagree on the same tree: a
 * deleted topology file that is not (cannot be) named).
 *
 * Scenario (docs/changing-topologies.md "Remove a whole topology", done alongside other work):
 *  1. a.ts (p), b.ts (r), c.ts (q); krt synth. 2. q decommissioned in c.ts; krt synth.
 *  3. c.ts deleted, and an unrelated consumer s added to b.ts. The operator runs the partial
 *     commands on what changed that still exists: `krt plan topologies/b.ts`,
 *     `krt synth topologies/b.ts` (a deleted file cannot be named: "no such topology file", exit 2).
 *
 * Seen: `krt plan topologies/b.ts` exits 0 and says nothing of c, where `krt plan` exits 3
 * ("consumer removed: deletes 'q.events.retry.1m', ... destructive", "topology removed: its
 * stack 'c' is still generated, with no resources"). `krt synth topologies/b.ts` exits 0 and
 * keeps topology c (its whole stack, its router, runbook and alerts) as if its file were there,
 * and `krt synth --check` right after says 12 files are out of date (terraform/c/cdk.tf.json,
 * .krt-model.json, ...). The generated folder then describes a topology whose file is gone, and
 * a CI that runs the partial plan on the changed files sees no destructive change.
 *
 * At fault: src/plan/partial.ts withUntouched keeps every committed topology whose file is not
 * named, without asking whether that file still exists (it asks only for a previousName take-over).
 *
 * Suggested fix: a committed topology whose file is gone is not "untouched": treat it as a full
 * run does (deleted: kept empty stack, mayHold recorded, judged by the guard), or refuse the
 * partial run naming the deleted file and asking for a full `krt synth`/`krt plan`.
 *
 * Fixed (session 44): plan/partial.ts withUntouched keeps a committed topology only while its
 * file stands and is not named; acrossFiles' warnings are told (synthesize.ts, plan, cdktf).
 */

jest.setTimeout(180_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
});
afterEach(() => project.remove());

it('after a topology file is deleted, a partial plan and synth of another file agree with the full ones', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  project.write('topologies/b.ts', topology('b', [consumer('r')]));
  project.write('topologies/c.ts', topology('c', [consumer('q')]));
  expect((await project.krt('synth')).code).toBe(0);
  project.write('topologies/c.ts', topology('c', [consumer('q', ', decommissioned: true')]));
  expect((await project.krt('synth')).code).toBe(0);
  rmSync(project.path('topologies/c.ts'));
  project.write('topologies/b.ts', topology('b', [consumer('r'), consumer('s')]));
  const fullPlan = await project.krt('plan');
  const partialPlan = await project.krt('plan', 'topologies/b.ts');
  // Today: full 3, partial 0.
  expect(partialPlan.code).toBe(fullPlan.code);
  expect((await project.krt('synth', 'topologies/b.ts')).code).toBe(0);
  // Today: exit 1, "12 files out of date".
  expect((await project.krt('synth', '--check')).stderr).toBe('');
});
