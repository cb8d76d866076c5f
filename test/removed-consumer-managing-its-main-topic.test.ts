import { mkdirSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { topologyOf as topology } from './helpers/topology-source';

/*
 * A decommissioned consumer that manages its main topic, which another consumer also reads, removed: its DLQ and tiers may go,
 * but stack 'a' would delete the main topic with every record, and synth refuses. The
 * refusal said to "put it back with decommissioned: true", which it already was: a loop.
 * It now says to hand the topic back first, and that way through works. Found by the
 * walkthrough of session 55.
 */

jest.setTimeout(120_000);

/** Consumer 'billing', its main topic with `topic` fields, decommissioned or not. */
const billing = (topic: string, decommissioned = true) => `{ name: 'billing', topic: { name: 'orders.confirmed', partitions: 6, ${topic} }, principal: 'User:billing', ladder: ['1m']${decommissioned ? ', decommissioned: true' : ''} }`;
/** Another consumer of the same main topic, which it does not manage. */
const audit = "{ name: 'audit', topic: { name: 'orders.confirmed', partitions: 6 }, retryTopicBase: 'orders.confirmed.audit', principal: 'User:audit', ladder: ['1m'] }";

let project: ScratchProject;
beforeEach(async () => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  project.write('topologies/a.ts', topology('a', [audit, billing('managed: true', false)]));
  expect((await project.krt('synth')).code).toBe(0);
  project.write('topologies/a.ts', topology('a', [audit, billing('managed: true')]));
});
afterEach(() => project.remove());

it('refuses to remove it while it manages its main topic, saying to hand the topic back, not to decommission it again', async () => {
  expect((await project.krt('synth')).code).toBe(0);
  project.write('topologies/a.ts', topology('a', [audit]));
  const removed = await project.krt('synth');
  expect(removed.code).toBe(1);
  expect(removed.stderr).toContain("consumer 'billing' was removed, and it managed its main topic 'orders.confirmed': consumer 'audit' still reads it, so stack 'a' would delete it with every record");
  expect(removed.stderr).toContain("hand the topic over first: managed: false with previouslyManaged: true on 'billing'");
  expect(removed.stderr).toContain("and if consumer 'audit' should manage it, managed: true with previouslyManaged: false there");
  expect(removed.stderr).not.toContain('put it back with decommissioned: true');
});

it('removes it once the topic was handed back and the stack applied, and the main topic is left to its producers', async () => {
  expect((await project.krt('synth')).code).toBe(0);
  project.write('topologies/a.ts', topology('a', [audit, billing('managed: false, previouslyManaged: true')]));
  expect((await project.krt('synth')).code).toBe(0);
  project.write('topologies/a.ts', topology('a', [audit]));
  const removed = await project.krt('synth', '--applied', 'a');
  expect({ code: removed.code, stderr: removed.stderr }).toEqual({ code: 0, stderr: '' });
  const stack = JSON.parse(project.read('generated/terraform/a/cdk.tf.json')) as { resource: { kafka_topic: Record<string, { name: string }> }; removed?: unknown[] };
  expect(Object.values(stack.resource.kafka_topic).map((t) => t.name)).not.toContain('orders.confirmed');
  expect(stack.removed ?? []).toEqual([]); // the hand-back was applied: nothing left to forget
});

it("plans the hand-back under the consumer whose stack forgets the topic, not under the one that reads it on", async () => {
  expect((await project.krt('synth')).code).toBe(0);
  project.write('topologies/a.ts', topology('a', [audit, billing('managed: false, previouslyManaged: true')]));
  const plan = await project.krt('plan');
  expect(plan.code).toBe(0);
  // The plan says each change under `<topology> / <consumer>`.
  const section = (consumer: string) => plan.stdout.split(/\n(?=\S)/).find((block) => block.startsWith(`a / ${consumer}\n`)) ?? '';
  expect(plan.stdout).toMatch(/'orders\.confirmed' leaves Terraform with its records/);
  expect(section('billing')).toMatch(/'orders\.confirmed' leaves Terraform with its records/);
  expect(section('audit')).not.toMatch(/'orders\.confirmed' leaves Terraform/);
});
