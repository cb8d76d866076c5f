import { applyOver, builtStack, topicsOf } from './helpers/built-stacks';
import { eachProjectWithCdktfOut, ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * A regression guard since 409f9d6 reverted 6ac2c0d (the chain of accepted synths): krt cdktf
 * judges the committed output against its last build again, and refuses this. Written by
 * review 54 as an it.failing against 6ac2c0d; passes on 6ac2c0d^ and after the revert.
 */

/*
 * Review 54, finding 2 (class: as finding 1, review54-lineage-skips-undeployed-decommission:
 * a guard that assumes the step before it was deployed, now skipped by krt cdktf).
 *
 * Scenario (docs/changing-topologies.md, "Retire or retime a tier"):
 *  1. a.ts: p with ladder ['1m', '10m']. krt synth; cdktf deploy.
 *  2. The 10m tier is retimed to 15m and retired: ladder ['1m', '15m'], retired: ['10m'].
 *     krt synth accepts, committed, not deployed (so the services still park records in
 *     'p.events.retry.10m' and nothing drains it).
 *  3. A follow-up drops '10m' from retired. krt synth judges it against the committed
 *     snapshot, where 10m is draining, and accepts it.
 *  4. cdktf deploy (krt cdktf).
 *
 * Seen on 6ac2c0d: exit 0; the build of stack 'a', applied over the state the step-1 deploy
 * left, destroys 'p.events.retry.10m' with every record waiting in it.
 * Before 6ac2c0d (checked on 6ac2c0d^): refused, "tier 10m left the ladder, which would
 * delete 'p.events.retry.10m' with every record waiting in it; add it to the retired tiers".
 *
 * At fault: src/cli/cdktf-command.ts, the descendsFrom() skip of judgedAgainstLastBuild
 * (src/writer/snapshot-lineage.ts): a chain of accepted synths is not a chain of deploys.
 *
 * Suggested fix: as in finding 1 (keep judging against the build, or better against the
 * cdktf state itself, terraform.<stack>.tfstate).
 */

jest.setTimeout(180_000);

let project: ScratchProject;
eachProjectWithCdktfOut((p) => (project = p));

const brief = (r: { code: number; stderr: string }) => ({ code: r.code, stderr: r.stderr });

it('a retired tier dropped right after a retirement nobody deployed: cdktf deploy does not destroy the undrained tier', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  expect(brief(await project.krt('synth'))).toEqual({ code: 0, stderr: '' });
  expect((await project.krt('cdktf')).code).toBe(0);
  const deployed = builtStack(project, 'a')!;
  project.write('topologies/a.ts', topology('a', [consumer('p').replace("['1m', '10m']", "['1m', '15m'], retired: ['10m']")]));
  expect(brief(await project.krt('synth'))).toEqual({ code: 0, stderr: '' });
  project.write('topologies/a.ts', topology('a', [consumer('p').replace("['1m', '10m']", "['1m', '15m']")]));
  expect(brief(await project.krt('synth'))).toEqual({ code: 0, stderr: '' });

  const cdktf = await project.krt('cdktf');
  const effects = cdktf.code === 0 ? applyOver(deployed, builtStack(project, 'a')!, topicsOf(deployed)) : [];
  // On 6ac2c0d: exit 0, and the deploy destroys 'p.events.retry.10m'.
  expect({ code: cdktf.code, effects }).toEqual({ code: 1, effects: [] });
  expect(cdktf.stderr).toContain('tier 10m left the ladder');
});
