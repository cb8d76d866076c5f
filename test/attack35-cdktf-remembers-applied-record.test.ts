import { rmSync } from 'node:fs';
import { eachProjectWithCdktfOut, ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * Attack 35 (class: false refusal that blocks the documented workflow; now hit by every
 * consumer removal and every drained tier dropped, not only by a deleted topology file).
 *
 * Scenario (docs/changing-topologies.md "Remove a consumer", deployed with `cdktf deploy`,
 * whose app is `krt cdktf`):
 *  1. a has p and q (q decommissioned); b has r. krt synth; krt cdktf (built, deployed).
 *  2. q removed from a. krt synth (a.mayHold = q's topics). krt cdktf: builds, and writes
 *     $CDKTF_OUTDIR/.krt-model.json from the model with the record carried (a may hold q's
 *     topics). cdktf deploys a: its state no longer holds them.
 *  3. `krt synth --applied a`, as the docs and the refusal say. The committed snapshot drops
 *     the record.
 *  4. q declared again in b. krt synth: accepted (exit 0), as documented.
 *  5. krt cdktf (cdktf deploy b).
 *
 * Seen: step 5 refuses, exit 1: "consumer 'q' declares ... again in stack 'b', but stack 'a',
 * whose configuration no longer declares them since a synth deleted them, may still hold them
 * ... then run krt synth (or krt plan) again with --applied a" followed by "krt cdktf judges the
 * committed output against what it built last ... if that build was deployed, make the change
 * as a spec edit krt synth accepts". It was, and krt synth accepted it; --applied was said, and
 * krt cdktf has no --applied. The only way on is deleting cdktf.out. The kept-stack twin
 * (topology file deleted instead of q removed; second test) fails the same way, so this
 * predates the change, but the change makes every consumer removal reach it.
 *
 * At fault: src/cli/cdktf-command.ts judges against `previous` (what cdktf built last) with
 * the records that build carried (heldResources of it), ignoring that the committed snapshot,
 * the operator's word through --applied, no longer has them.
 *
 * Fixed (session 44): cdktf judges `previous` with the committed snapshot's records
 * (held-by-state.ts withHeldOf).
 *
 * Suggested fix: judge with the committed baseline's records: take `previous` with the
 * records of stacks the baseline no longer records cleared (withAppliedStacks(previous,
 * stacks held in previous and not in baseline)), or write the cdktf.out snapshot without
 * records and carry the baseline's.
 */

jest.setTimeout(180_000);

let project: ScratchProject;
eachProjectWithCdktfOut((p) => (project = p));

it('live: q removed, deployed, --applied told, q declared in b: cdktf builds it', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q', ', decommissioned: true')]));
  project.write('topologies/b.ts', topology('b', [consumer('r')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  expect(await project.krt('cdktf')).toMatchObject({ code: 0 });
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  // cdktf deploy a: builds what synth wrote, and deploys it.
  expect(await project.krt('cdktf')).toMatchObject({ code: 0 });
  expect(await project.krt('synth', '--applied', 'a')).toMatchObject({ code: 0, stderr: '' });
  project.write('topologies/b.ts', topology('b', [consumer('r'), consumer('q')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  const cdktf = await project.krt('cdktf');
  expect(cdktf.stderr).toBe('');
  expect(cdktf.code).toBe(0);
});

it('kept: a deleted, deployed, --applied told, q declared in b: cdktf builds it', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('q', ', decommissioned: true')]));
  project.write('topologies/b.ts', topology('b', [consumer('r')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  expect(await project.krt('cdktf')).toMatchObject({ code: 0 });
  rmSync(project.path('topologies/a.ts'));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  expect(await project.krt('cdktf')).toMatchObject({ code: 0 });
  expect(await project.krt('synth', '--applied', 'a')).toMatchObject({ code: 0, stderr: '' });
  project.write('topologies/b.ts', topology('b', [consumer('r'), consumer('q')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  const cdktf = await project.krt('cdktf');
  expect(cdktf.stderr).toBe('');
  expect(cdktf.code).toBe(0);
});
