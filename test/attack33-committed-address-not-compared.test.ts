import { mkdirSync } from 'node:fs';
import { ScratchProject } from './helpers/project';

/*
 * Attack 33, finding 3 (class: the committed Terraform is ahead of the snapshot in a way the
 * guard does not compare; records can be lost).
 *
 * Scenario: topology a is synthesized. Its committed stack then holds the DLQ under another
 * address than krt's emitter gives it: `kafka_topic.a_events_dlq_v0` instead of
 * `kafka_topic.a_events_dlq` (a hand edit so that the address matches what a state adopted
 * before krt holds, or a merge of hand-edited output; applied that way). The spec does not
 * change. `krt plan`, then `krt synth`.
 *
 * Seen: `krt plan` says "no changes against generated/.krt-model.json" (exit 0) and
 * `krt synth` rewrites terraform/a/cdk.tf.json with the DLQ back at
 * `kafka_topic.a_events_dlq`. Terraform then destroys `kafka_topic.a_events_dlq_v0` (its block
 * is gone, so prevent_destroy does not hold) and creates `kafka_topic.a_events_dlq`: the DLQ
 * is deleted with every dead letter in it. The same edit with other partitions, replication
 * factor or config is judged (see plan-committed-stack-configs.test.ts); an address is not.
 *
 * At fault: src/plan/outcome.ts `committedAhead`/`differsFromSnapshot` compare a committed
 * topic with the snapshot by name only (partitions, replication factor, config), never its
 * address, so the topology is not in `changed` and `judgeOutcome` never compares that stack.
 *
 * Suggested fix: in `differsFromSnapshot`, also report a committed topic whose address is not
 * `kafka_topic.<topicResourceId(name)>` (the address the emitter gives it), so the stack is
 * judged from the committed file, where `Context.deleted` refuses the deletion.
 *
 * Fixed (session 43) as suggested; the refusal and the plan name both addresses
 * (`refusal.readdressed`).
 */

jest.setTimeout(120_000);

let project: ScratchProject;
beforeEach(async () => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  project.write(
    'topologies/a.ts',
    [
      "import { defineTopology } from 'kafka-retry-topology';",
      "export default defineTopology({ name: 'a', owner: { team: 'a', onCall: '#a' }, runbookBaseUrl: 'https://runbooks.example.com/kafka', consumers: [",
      "  { name: 'a', topic: { name: 'a.events', partitions: 6 }, principal: 'User:a', ladder: ['1m', '10m'] },",
      ']});',
      '',
    ].join('\n'),
  );
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  const stack = JSON.parse(project.read('generated/terraform/a/cdk.tf.json'));
  const topics = stack.resource.kafka_topic;
  topics.a_events_dlq_v0 = topics.a_events_dlq;
  delete topics.a_events_dlq;
  project.write('generated/terraform/a/cdk.tf.json', `${JSON.stringify(stack, null, 2)}\n`);
});
afterEach(() => project.remove());

it('control: a committed DLQ at krt\'s address with fewer partitions than the snapshot says is judged', async () => {
  const stack = JSON.parse(project.read('generated/terraform/a/cdk.tf.json'));
  const topics = stack.resource.kafka_topic;
  topics.a_events_dlq = { ...topics.a_events_dlq_v0, partitions: 12 };
  delete topics.a_events_dlq_v0;
  project.write('generated/terraform/a/cdk.tf.json', `${JSON.stringify(stack, null, 2)}\n`);
  const synth = await project.krt('synth');
  expect(synth.code).toBe(1);
  expect(synth.stderr).toContain('terraform/a/cdk.tf.json gives it 12 partitions');
});

it('does not rewrite a committed DLQ to another address (a destroy and a create) while calling it no change', async () => {
  const plan = await project.krt('plan');
  const synth = await project.krt('synth');
  // Before the fix: plan exit 0 "no changes against generated/.krt-model.json"; synth exit 0, DLQ moved back to kafka_topic.a_events_dlq.
  expect({ plan: plan.code === 0 ? plan.stdout.trim() : 'refused or destructive', synth: synth.code }).toEqual({ plan: 'refused or destructive', synth: 1 });
  expect(synth.stderr).toContain("stack 'a' would move 'a.events.dlq' from kafka_topic.a_events_dlq_v0 to kafka_topic.a_events_dlq");
  expect(plan.stdout).toContain("'a.events.dlq' moves from kafka_topic.a_events_dlq_v0 to kafka_topic.a_events_dlq in stack 'a'");
});
