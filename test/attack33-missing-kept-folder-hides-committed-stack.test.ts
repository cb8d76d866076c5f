import { mkdirSync, rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * Attack 33, finding 4 (class: a file operation in generated/ turns the guard on the committed
 * Terraform off; records can be lost).
 *
 * Scenario:
 *  1. Topologies a (consumer p) and c (consumer x, decommissioned); synth. c.ts deleted; synth:
 *     topology a now carries the kept, empty stack c (terraform/c/cdk.tf.json: provider and
 *     variables, no resources).
 *  2. terraform/a/cdk.tf.json gets p's DLQ at 12 partitions while the snapshot says 6 (an
 *     emergency edit applied by hand, or a merge that kept one side's stack): the situation
 *     `committedAhead` exists for. With the folder as is, `krt synth` refuses (control).
 *  3. The empty folder generated/terraform/c is deleted (it declares nothing: it looks like
 *     litter), and `krt plan` / `krt synth` run with the spec unchanged.
 *
 * Seen: plan "no changes against generated/.krt-model.json" (exit 0); synth writes
 * terraform/c back and rewrites terraform/a with the DLQ at 6 partitions. The provider forces
 * a new resource on a partition decrease: 'p.events.dlq' is deleted and recreated with every
 * dead letter lost (prevent_destroy would stop the apply, but the guard's promise is that synth
 * never accepts it, as it does in step 2).
 *
 * At fault: src/plan/outcome.ts `stacksBefore` takes a topology's stacks from the committed
 * files only when ALL of its stacks (its own and each former or kept stack it carries) are
 * committed; one missing file makes it synthesize every one of them from the snapshot, so
 * the committed terraform/a, although `committedAhead` flagged it, is never compared.
 *
 * Suggested fix: take each stack from the committed file when there is one and synthesize
 * only the missing ones (per stack, not per topology); at least never drop a stack that
 * `committedAhead` reported.
 *
 * Fixed (session 43): `stacksBefore` takes each stack from the committed file where there
 * is one and synthesizes only the others, per stack (the class of findings 4 and 5).
 */

jest.setTimeout(120_000);


let project: ScratchProject;
beforeEach(async () => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  project.write('topologies/c.ts', topology('c', [consumer('x', ', decommissioned: true')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  rmSync(project.path('topologies/c.ts'));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  const stack = JSON.parse(project.read('generated/terraform/a/cdk.tf.json'));
  stack.resource.kafka_topic.p_events_dlq.partitions = 12;
  project.write('generated/terraform/a/cdk.tf.json', `${JSON.stringify(stack, null, 2)}\n`);
});
afterEach(() => project.remove());

it('control: with the kept stack\'s folder there, the committed 12-partition DLQ going back to 6 is refused', async () => {
  const synth = await project.krt('synth');
  expect(synth.code).toBe(1);
  expect(synth.stderr).toContain("'p.events.dlq' would shrink from 12 to 6 partitions");
});

it('still refuses it once the empty folder of the kept stack was deleted', async () => {
  rmSync(project.path('generated/terraform/c'), { recursive: true });
  const plan = await project.krt('plan');
  const synth = await project.krt('synth');
  // Today: plan exit 0 "no changes"; synth exit 0 and terraform/a's DLQ back at 6 partitions.
  expect({ plan: plan.code, synth: synth.code, dlqPartitions: JSON.parse(project.read('generated/terraform/a/cdk.tf.json')).resource.kafka_topic.p_events_dlq.partitions }).toEqual({ plan: 1, synth: 1, dlqPartitions: 12 });
});
