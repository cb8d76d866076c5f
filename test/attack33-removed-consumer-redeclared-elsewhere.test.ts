import { mkdirSync, rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * Attack 33, finding 6 (class: two ordinary edits, each accepted, whose Terraform cannot be
 * applied in any order without losing records; the live-stack twin of the kept-stack guard).
 *
 * Scenario (nothing applied between the synths, as in the kept-stack case):
 *  1. Topology a has p and q (q decommissioned); topology b has r. Synth.
 *  2. q is removed from a (step 2 of removing a consumer). Synth: accepted, plan "destructive:
 *     consumer removed: deletes 'q.events.retry.1m', ...", as documented.
 *  3. q is declared again, not decommissioned, in topology b (the team changed its mind, or q
 *     moved to b's team). Synth.
 *
 * Seen: step 3 is accepted; plan "safe: new consumer: creates 'q.events.retry.1m',
 * 'q.events.retry.10m', 'q.events.dlq', 'q.events.dlq.audit'", 0 destructive. Stack a's state
 * still holds q's topics until a is applied: applying b fails to create topics that exist (its
 * ACLs for q go through and q runs on the old topics), and applying a then deletes them with
 * every record q wrote since. The very same sequence through a deleted topology FILE is
 * refused ("stack 'a', kept (empty) ... may still hold them ... --applied a": see the
 * control below and docs/changing-topologies.md "Remove a whole topology"). Declared again in
 * a (its own stack) the topics would be kept, which is fine.
 *
 * At fault: src/plan/outcome.ts `Context.added` judges a topic the snapshot does not name as
 * new; the snapshot (src/writer/model-snapshot.ts) records what a kept stack may still hold
 * (`mayHold`) but nothing of what a live stack's last synth deleted and may not have been
 * applied yet.
 *
 * Suggested fix: carry, per live stack, the topics its last accepted synth deleted (as
 * `mayHold` does for kept stacks) until `--applied <stack>` (or until they are declared again
 * in that same stack), and refuse declaring them in another stack meanwhile, with the same
 * message.
 */

jest.setTimeout(120_000);


let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
});
afterEach(() => project.remove());

it('control: q removed with its whole topology file, then declared again in b, is refused until --applied', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('q', ', decommissioned: true')]));
  project.write('topologies/b.ts', topology('b', [consumer('r')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  rmSync(project.path('topologies/a.ts'));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  project.write('topologies/b.ts', topology('b', [consumer('r'), consumer('q')]));
  const synth = await project.krt('synth');
  expect(synth.code).toBe(1);
  expect(synth.stderr).toContain("declares 'q.events.dlq', 'q.events.dlq.audit', 'q.events.retry.10m', 'q.events.retry.1m' again in stack 'b'");
});

it('q removed from a topology that stays, then declared again in b before a was applied, is refused too', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q', ', decommissioned: true')]));
  project.write('topologies/b.ts', topology('b', [consumer('r')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  project.write('topologies/b.ts', topology('b', [consumer('r'), consumer('q')]));
  const plan = await project.krt('plan');
  const synth = await project.krt('synth');
  // Today: plan exit 0 ("safe: new consumer: creates 'q.events.retry.1m', ..."), synth exit 0.
  expect({ plan: plan.code, synth: synth.code }).toEqual({ plan: 1, synth: 1 });
});
