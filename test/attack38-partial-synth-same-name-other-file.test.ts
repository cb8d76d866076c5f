import { mkdirSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * Attack 38, finding 1 (class: a partial run writes what a full run refuses; attack 36's class,
 * reached through withUntouched's take-over by name).
 *
 * Scenario: a.ts (topology a: p), b.ts (topology b: r); krt synth. A team starts a new topology
 * file by copying topologies/b.ts to topologies/c.ts and has not renamed it yet (c.ts still says
 * name: 'b'), then runs `krt synth topologies/c.ts` (some files: the one they are working on).
 *
 * Seen: the partial synth exits 0 and writes generated/.krt-model.json (topology b now comes from
 * topologies/c.ts) and the runbook; b.ts, which still defines topology 'b', is silently left out.
 * A full `krt synth` (and `krt synth --check` right after) refuses the same tree with 5 errors
 * ("topology 'b' is also defined in topologies/b.ts", consumer 'r' defined twice, ...). With other
 * consumers in c.ts, `krt plan topologies/c.ts` tells r's topics and ACLs as removed from stack b,
 * although b.ts still declares r: the partial run judges a stack that neither file alone defines.
 *
 * At fault: src/plan/partial.ts withUntouched, `taken`: a committed topology is dropped from the
 * merged model as soon as a named file has a topology of the same name, even when the committed
 * topology's file is still there and not named (it still defines that topology). So acrossFiles
 * (checkProject's duplicate-name rule) never sees the clash.
 *
 * Worse, with records: b.ts holds r decommissioned (step 1 of "Remove a consumer": its DLQ is
 * still being replayed, r is not removed from the spec). c.ts, copied from b.ts and still named
 * 'b', gets its own consumer s in place of r. `krt synth topologies/c.ts` exits 0 and writes stack
 * b without r's tiers, DLQ and audit log: applying b deletes 'r.events.dlq' with its unhandled
 * records, although no spec removed r (b.ts still declares it). A full synth refuses the tree.
 *
 * Suggested fix: take a committed topology over by name only when its file is one of the named
 * files or is gone (as the previousName take-over already requires); otherwise keep it in the
 * merged model, so acrossFiles refuses the duplicate as a full run does.
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

it('a partial synth of a file that copies another file\'s topology name is refused, as a full synth is', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  project.write('topologies/b.ts', topology('b', [consumer('r')]));
  expect((await project.krt('synth')).code).toBe(0);
  project.write('topologies/c.ts', topology('b', [consumer('r')]));
  const full = await project.krt('synth', '--check');
  expect(full.code).toBe(1);
  expect(full.stderr).toContain("topology 'b' is also defined in topologies/b.ts");
  const partial = await project.krt('synth', 'topologies/c.ts');
  // Today: exit 0, "wrote generated/runbooks/r.md", "wrote generated/.krt-model.json".
  expect({ code: partial.code, refused: partial.stderr.includes("topology 'b' is also defined in topologies/b.ts") }).toEqual({ code: 1, refused: true });
});

it('a partial synth of a copy named like another file\'s topology does not delete the DLQ of a consumer that file still declares', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  project.write('topologies/b.ts', topology('b', [consumer('r', ', decommissioned: true')]));
  expect((await project.krt('synth')).code).toBe(0);
  project.write('topologies/c.ts', topology('b', [consumer('s')]));
  expect((await project.krt('synth')).code).toBe(1);
  const partial = await project.krt('synth', 'topologies/c.ts');
  // Today: exit 0, and generated/terraform/b/cdk.tf.json no longer declares r.events.dlq.
  expect({ code: partial.code, declaresDlq: project.read('generated/terraform/b/cdk.tf.json').includes('"r.events.dlq"') }).toEqual({ code: 1, declaresDlq: true });
});
