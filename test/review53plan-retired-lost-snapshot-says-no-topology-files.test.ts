import { mkdirSync, rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * Fixed (session 53): outputHasStacks counts a snapshot missing beside krt's manifest, so the
 * command goes on to readBaseline, which says the snapshot was lost and how to restore it.
 *
 * Review 53plan (class: a refusal that gives the wrong way out; low severity, nothing is lost).
 *
 * Scenario: the last topology file, a.ts, was removed as documented (decommissioned, synth,
 * file deleted, synth): generated/ holds the kept stack terraform/a, the runbook index, the
 * manifest and the snapshot. The snapshot is then lost (a checkout that missed it, a bad
 * merge resolution, `git clean`), the manifest still beside it.
 *
 * Seen: `krt synth`, `krt plan` and `krt cdktf` each say "no topology files found; add
 * topologies/<name>.ts that default-exports defineTopology({ ... })". That is the message the
 * docs reserve for "a project that never had a topology file", and following it (adding a
 * topology file) only then brings the real diagnosis. Expected: what every other run says of a
 * snapshot lost beside krt's manifest (readBaseline): "generated/.krt-model.json is missing,
 * but .krt-manifest beside it shows krt generated this folder ... restore it from the branch
 * this one started from".
 *
 * Caused by this change: yes, in that it introduced the no-files path (before it every run with
 * no topology file said "no topology files found", as there was nothing else it could do).
 * Code at fault: src/plan/baseline.ts outputHasStacks returns false when the snapshot cannot be
 * read at all (ENOENT), so synthesize.ts / plan-command.ts / cdktf-command.ts pass retired =
 * false to compileFiles and never reach readBaseline's lost-snapshot check.
 *
 * Suggested fix: in outputHasStacks, count a missing snapshot beside krt's manifest (or any
 * terraform/<stack> folder in the output) as "has stacks", so the command goes on to
 * readBaseline, which reports the lost snapshot and how to restore it.
 */

jest.setTimeout(180_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
});
afterEach(() => project.remove());

it('a retired project whose snapshot was lost is told to restore it, not that it has no topology files', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('q')]));
  expect((await project.krt('synth')).code).toBe(0);
  project.write('topologies/a.ts', topology('a', [consumer('q', ', decommissioned: true')]));
  expect((await project.krt('synth')).code).toBe(0);
  rmSync(project.path('topologies/a.ts'));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  rmSync(project.path('generated/.krt-model.json'));

  const synth = await project.krt('synth');
  expect(synth.code).toBe(1);
  expect(synth.stderr).not.toContain('no topology files found');
  expect(synth.stderr).toContain('.krt-model.json is missing');
});
