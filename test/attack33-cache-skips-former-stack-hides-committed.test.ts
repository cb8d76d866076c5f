import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';

/*
 * Attack 33, finding 5 (class: the synth cache changes what the guard decides; records can be
 * lost, and `krt synth` differs from `krt synth --no-cache` on the same inputs).
 *
 * Scenario:
 *  1. Topology a (consumer p); synth. Renamed to a2 with previousName: 'a' (as documented: a2
 *     imports, stack a is still generated with removed blocks); synth. Both runs use the cache.
 *  2. terraform/a2/cdk.tf.json gets p's DLQ at 12 partitions while the snapshot says 6 (an
 *     emergency edit applied by hand, or a merge mixing two versions: what `committedAhead`
 *     is for). The spec does not change.
 *  3. `krt synth` (with the cache, the default).
 *
 * Seen: the cached synth writes terraform/a2 with the DLQ back at 6 partitions, exit 0 (the
 * provider then replaces 'p.events.dlq', losing every dead letter); `krt synth --no-cache`
 * and `krt plan` on the very same folder refuse ("would shrink from 12 to 6 partitions ...
 * the committed stack terraform/a2/cdk.tf.json gives it 12 partitions").
 *
 * At fault: src/synth/stacks-as-generated.ts skips reading the committed stacks that are byte
 * for byte what the emitter made of an unchanged model, per STACK: terraform/a (untouched) is
 * skipped while terraform/a2 (edited) is read. src/plan/outcome.ts `stacksBefore` then takes a
 * topology's stacks from the committed files only when ALL its stacks (a2 and the former a)
 * are in `committed`; a2's are not all there, so both are synthesized from the snapshot and
 * the committed a2 that `committedAhead` flagged is never compared.
 *
 * Suggested fix: in `stacksBefore`, take each stack from `committed` when present and
 * synthesize the others (a skipped stack IS what the snapshot synthesizes); or make
 * `stacksAsGenerated` skip a topology's stacks all together or none.
 *
 * Fixed (session 43): `stacksBefore` takes each stack from the committed file where there
 * is one and synthesizes only the others, per stack (the class of findings 4 and 5).
 */

jest.setTimeout(120_000);

const topology = (name: string, extra = '') =>
  [
    "import { defineTopology } from 'kafka-retry-topology';",
    `export default defineTopology({ name: '${name}', ${extra} owner: { team: 'a', onCall: '#a' }, runbookBaseUrl: 'https://runbooks.example.com/kafka', consumers: [`,
    "  { name: 'p', topic: { name: 'p.events', partitions: 6 }, principal: 'User:p', ladder: ['1m', '10m'] },",
    ']});',
    '',
  ].join('\n');

let project: ScratchProject;
let copy: ScratchProject;
beforeEach(async () => {
  project = new ScratchProject(false);
  copy = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  project.write('topologies/a.ts', topology('a'));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  rmSync(project.path('topologies/a.ts'));
  project.write('topologies/a2.ts', topology('a2', "previousName: 'a',"));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  const stack = JSON.parse(project.read('generated/terraform/a2/cdk.tf.json'));
  stack.resource.kafka_topic.p_events_dlq.partitions = 12;
  project.write('generated/terraform/a2/cdk.tf.json', `${JSON.stringify(stack, null, 2)}\n`);
  // The same repository without the cache, for the reference verdict.
  for (const folder of ['topologies', 'generated']) cpSync(project.path(folder), copy.path(folder), { recursive: true });
});
afterEach(() => {
  project.remove();
  copy.remove();
});

const dlqPartitions = (p: ScratchProject): number => JSON.parse(p.read('generated/terraform/a2/cdk.tf.json')).resource.kafka_topic.p_events_dlq.partitions;

it('control: krt synth --no-cache and krt plan refuse to shrink the committed DLQ back', async () => {
  const synth = await copy.krt('synth', '--no-cache');
  expect(synth.code).toBe(1);
  expect(synth.stderr).toContain("'p.events.dlq' would shrink from 12 to 6 partitions");
  expect((await project.krt('plan')).code).toBe(1);
});

it('the cached krt synth refuses it too, and leaves the committed stack as it was', async () => {
  const synth = await project.krt('synth');
  // Today: exit 0, "wrote generated/terraform/a2/cdk.tf.json", the DLQ back at 6 partitions.
  expect({ code: synth.code, dlqPartitions: dlqPartitions(project) }).toEqual({ code: 1, dlqPartitions: 12 });
});
