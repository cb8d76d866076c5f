import { cpSync, rmSync } from 'node:fs';
import { applyOver, builtStack, topicsOf } from './helpers/built-stacks';
import { eachProjectWithCdktfOut, ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * A regression guard since 409f9d6 reverted 6ac2c0d (the chain of accepted synths): krt cdktf
 * judges the committed output against its last build again, and refuses this. Written by
 * review 54 as an it.failing against 6ac2c0d; passes on 6ac2c0d^ and after the revert.
 */

/*
 * Review 54, finding 5 (class: identity by content, ABA: a chain of content hashes cannot
 * tell two moments with the same snapshot apart, so a revert of deployed output is taken for a
 * descendant of the build).
 *
 * Scenario, every step deployed with cdktf deploy, nothing applied any other way:
 *  t0. a.ts (p, q). krt synth; cdktf deploy. Snapshot A.
 *  t1. q decommissioned: true. krt synth; cdktf deploy. Snapshot D (lineage [A]).
 *  t2. q removed (DLQ drained). krt synth; cdktf deploy: q's topics are deleted. Snapshot R
 *      (lineage [A, D]).
 *  t3. q is needed after all: put back in a.ts as it was. krt synth accepts (declared again in
 *      its own stack); cdktf deploy recreates q's topics, which fill with records again. The
 *      snapshot is A again, byte for byte (lineage [A, D, R]); cdktf.out/.krt-built-from = A.
 *  t4. Weeks later someone reverts the t3 commit (`git revert`: topologies/ and generated/ as
 *      at t2), and cdktf deploy runs.
 *
 * Seen on 6ac2c0d: t4 exits 0: the committed snapshot is R, whose lineage (written at t2)
 * names A, the snapshot of t0, which is also the build's; descendsFrom() takes R for a
 * descendant of the build and skips the judgment. The build of 'a' drops q's topics without
 * a removed block: cdktf deploy destroys q's DLQ, audit log and tiers with the records of the
 * weeks since t3. This is the "git revert of deployed output" that docs/deploying.md says is
 * still refused ("Anything else is judged against the build itself, and a revert of deployed
 * output is refused").
 * Before 6ac2c0d (checked on 6ac2c0d^): t4 judged against the build (q live, not
 * decommissioned) and refused: "consumer 'q' was removed, which would delete its DLQ ...".
 * The property test in test/snapshot-lineage.test.ts misses it because its oracle is the same
 * notion: R is "reachable" from A through accepted synths (A -> D -> R at t0..t2).
 *
 * At fault: src/writer/snapshot-lineage.ts: judgedAgainst holds sha256(snapshot) only, and
 * cdktf.out/.krt-built-from the sha256 of the snapshot it built from; descendsFrom() matches
 * a snapshot seen at another time.
 *
 * Suggested fix: chain identities, not contents: let each lineage entry (and built-from) be
 * the hash of the snapshot together with its own lineage (a hash chain, as git commits are),
 * so A at t0 and A at t3 differ; a build then vouches only for descendants of that very
 * synth. (Findings 1 to 4 still need the judgment kept, though.)
 */

jest.setTimeout(180_000);

let project: ScratchProject;
eachProjectWithCdktfOut((p) => (project = p));

const brief = (r: { code: number; stderr: string }) => ({ code: r.code, stderr: r.stderr });
const ok = { code: 0, stderr: '' };

it('a git revert of deployed output whose snapshot chain passes through the build\'s snapshot at an earlier time: refused', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q')]));
  expect(brief(await project.krt('synth'))).toEqual(ok);
  expect(brief(await project.krt('cdktf'))).toEqual(ok);
  project.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q', ', decommissioned: true')]));
  expect(brief(await project.krt('synth'))).toEqual(ok);
  expect(brief(await project.krt('cdktf'))).toEqual(ok);
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  expect(brief(await project.krt('synth'))).toEqual(ok);
  expect(brief(await project.krt('cdktf'))).toEqual(ok);
  // The t2 commit, for the revert.
  cpSync(project.path('generated'), project.path('t2/generated'), { recursive: true });
  cpSync(project.path('topologies'), project.path('t2/topologies'), { recursive: true });
  project.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q')]));
  expect(brief(await project.krt('synth'))).toEqual(ok);
  expect(brief(await project.krt('cdktf'))).toEqual(ok);
  const deployed = builtStack(project, 'a')!; // q's topics recreated, filling with records
  expect([...deployed.topics.values()]).toContain('q.events.dlq');

  // git revert of the t3 commit.
  for (const dir of ['generated', 'topologies']) {
    rmSync(project.path(dir), { recursive: true });
    cpSync(project.path(`t2/${dir}`), project.path(dir), { recursive: true });
  }
  const cdktf = await project.krt('cdktf');
  const effects = cdktf.code === 0 ? applyOver(deployed, builtStack(project, 'a')!, topicsOf(deployed)) : [];
  // On 6ac2c0d: exit 0, and the deploy destroys 'q.events.dlq', 'q.events.dlq.audit', 'q.events.retry.10m', 'q.events.retry.1m'.
  expect({ code: cdktf.code, effects }).toEqual({ code: 1, effects: [] });
  expect(cdktf.stderr).toContain("consumer 'q' was removed");
});
