import { applyOver, builtStack, topicsOf } from './helpers/built-stacks';
import { eachProjectWithCdktfOut, ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * A regression guard since 409f9d6 reverted 6ac2c0d (the chain of accepted synths): krt cdktf
 * judges the committed output against its last build again, and refuses this. Written by
 * review 54 as an it.failing against 6ac2c0d; passes on 6ac2c0d^ and after the revert.
 */

/*
 * Review 54, finding 1 (class: a guard that assumes the step before it was deployed, now
 * skipped: "each synth was accepted against the one before" taken for "applying the latest
 * over what cdktf deployed is safe").
 *
 * Scenario (docs/changing-topologies.md, "Remove a consumer": "Set decommissioned: true,
 * synth and deploy. ... replay or discard its DLQ and wait until krt plan --live shows its
 * tiers empty. 2. Remove the consumer."):
 *  1. a.ts (p, q). krt synth; cdktf deploy (krt cdktf builds; q's DLQ and tiers live).
 *  2. q gets decommissioned: true. krt synth, accepted, committed. Nobody deploys it (the PR
 *     is merged; deploys are weekly), so q is still routed to, its DLQ keeps filling.
 *  3. The follow-up PR removes q. krt synth judges it against the committed snapshot, where q
 *     is decommissioned, and accepts it (it cannot know step 2 was never deployed).
 *  4. cdktf deploy (krt cdktf).
 *
 * Seen on 6ac2c0d: step 4 exits 0 and builds stack 'a' without q's topics and without a
 * removed block for them; applied over the state the step-1 deploy left, it destroys
 * 'q.events.dlq' (every unhandled record), its audit log and its tiers, which were never
 * drained: the decommission was never deployed.
 * Before 6ac2c0d (checked on 6ac2c0d^): krt cdktf judged the committed output against its
 * build, where q is live, and refused: "consumer 'q' was removed, which would delete its DLQ
 * ... put it back with decommissioned: true, synth and deploy that".
 *
 * At fault: src/cli/cdktf-command.ts skips judgedAgainstLastBuild whenever
 * src/writer/snapshot-lineage.ts descendsFrom() finds the build's snapshot in the chain. The
 * chain only says each synth was judged against the committed snapshot before it; the synth
 * guards (decommissioned before removal, retired before dropped, a move on applied stacks)
 * are sound only when each accepted step was deployed before the next, which krt synth cannot
 * know and krt cdktf's judgment against its own build was the one check of.
 *
 * Suggested fix: do not skip the judgment against the build. Better still, since the cdktf
 * stacks use the local backend at a known path (terraform.<stack>.tfstate), judge against
 * the resources that state holds (what is deployed), not against the last build; or record
 * in the lineage which steps were applied (--applied) and let only those through.
 */

jest.setTimeout(180_000);

let project: ScratchProject;
eachProjectWithCdktfOut((p) => (project = p));

const brief = (r: { code: number; stderr: string }) => ({ code: r.code, stderr: r.stderr });

it('a removal synthesized right after a decommission nobody deployed: cdktf deploy does not destroy the undrained DLQ', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q')]));
  expect(brief(await project.krt('synth'))).toEqual({ code: 0, stderr: '' });
  expect((await project.krt('cdktf')).code).toBe(0);
  const deployed = builtStack(project, 'a')!; // what cdktf deploy applied: terraform.a.tfstate holds it
  project.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q', ', decommissioned: true')]));
  expect(brief(await project.krt('synth'))).toEqual({ code: 0, stderr: '' });
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  expect(brief(await project.krt('synth'))).toEqual({ code: 0, stderr: '' });

  const cdktf = await project.krt('cdktf');
  const effects = cdktf.code === 0 ? applyOver(deployed, builtStack(project, 'a')!, topicsOf(deployed)) : [];
  // On 6ac2c0d: exit 0, and the deploy destroys 'q.events.dlq', 'q.events.dlq.audit', 'q.events.retry.10m', 'q.events.retry.1m'.
  expect({ code: cdktf.code, effects }).toEqual({ code: 1, effects: [] });
  expect(cdktf.stderr).toContain("consumer 'q' was removed");
});
