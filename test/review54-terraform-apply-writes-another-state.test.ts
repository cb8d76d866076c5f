import path from 'node:path';
import { applyOver, builtStack, topicsOf } from './helpers/review54-builds';
import { eachProjectWithCdktfOut, ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * A regression guard since 409f9d6 reverted 6ac2c0d (the chain of accepted synths): krt cdktf
 * judges the committed output against its last build again, and refuses this. Written by
 * review 54 as an it.failing against 6ac2c0d; passes on 6ac2c0d^ and after the revert.
 */

/*
 * Review 54, finding 4 (class: a fix built on a premise the generated Terraform does not
 * meet: two Terraform states for one stack; docs that promise what the state layout cannot
 * give).
 *
 * 6ac2c0d lets krt cdktf build, unjudged, output that descends from its last build through
 * accepted synths, so that "changes applied meanwhile with terraform apply in
 * generated/terraform/<topology>/ (a move, then its declaration dropped with --applied)
 * deploy through cdktf afterwards" (docs/deploying.md; attack 37's first test). But the two
 * ways do not share a state: the committed stacks have no backend, so `terraform apply` in
 * generated/terraform/a keeps its state in generated/terraform/a/terraform.tfstate, while the
 * stacks krt cdktf builds carry cdktf's local backend, terraform.a.tfstate in the project
 * root (docs/deploying.md: "state goes to terraform.<topology>.tfstate in the project root").
 * A terraform apply in generated/ never reaches the state cdktf deploy applies to: that state
 * is still exactly what cdktf deployed last, i.e. what the last build describes, which is what
 * the judgment that 6ac2c0d skips compared with.
 *
 * Scenario (attack 37's, as docs/deploying.md now describes it):
 *  1. a.ts (p, q), b.ts (r). krt synth; cdktf deploy (terraform.a.tfstate holds q's topics).
 *  2. q moves to b (previousTopology: 'a'), krt synth, and the engineer applies it with
 *     terraform apply in generated/terraform/a and /b (whatever state they had to put there
 *     for that apply to work, terraform.a.tfstate in the root is not written).
 *  3. previousTopology dropped: krt synth --applied a.
 *  4. cdktf deploy (krt cdktf).
 *
 * Seen on 6ac2c0d: exit 0. The built stack 'a' keeps its state in terraform.a.tfstate (still
 * holding q's topics since step 1), declares none of them and has no removed block: cdktf
 * deploy destroys 'q.events.dlq', its audit log and its tiers, with their records (and
 * stack 'b', whose cdktf state never imported them, creates them again empty or fails).
 * Before 6ac2c0d (checked on 6ac2c0d^): refused ("consumer 'q' moved from topology 'a' to
 * 'b' ... set previousTopology"), which was right for the state cdktf applies to; the old
 * docs said "Keep to one of the two ways for a project", a sentence 6ac2c0d removed.
 *
 * At fault: src/cli/cdktf-command.ts (the descendsFrom() skip), and docs/deploying.md /
 * docs/changing-topologies.md (workflow step 4), which promise that mixing the two ways works.
 * The same holds for any --applied in the chain that refers to an apply made outside cdktf
 * (review question: "--applied given for a stack applied from a different commit").
 *
 * Suggested fix: keep judging against the build (or, better, against
 * terraform.<stack>.tfstate, which krt cdktf can read: it is the cdktf stacks' own local
 * backend); restore "keep to one of the two ways", and for a switch from terraform apply to
 * cdktf say to move each generated/terraform/<stack>/terraform.tfstate to
 * terraform.<stack>.tfstate before deleting cdktf.out. Alternatively give both ways one state
 * (a backend in the committed stacks that krt cdktf's build uses too).
 */

jest.setTimeout(180_000);

let project: ScratchProject;
eachProjectWithCdktfOut((p) => (project = p));

const brief = (r: { code: number; stderr: string }) => ({ code: r.code, stderr: r.stderr });

it('a move applied with terraform apply in generated/ and settled with --applied: cdktf deploy does not destroy the moved topics from its own state', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q')]));
  project.write('topologies/b.ts', topology('b', [consumer('r')]));
  expect(brief(await project.krt('synth'))).toEqual({ code: 0, stderr: '' });
  expect((await project.krt('cdktf')).code).toBe(0);
  const deployed = { a: builtStack(project, 'a')!, b: builtStack(project, 'b')! };
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  project.write('topologies/b.ts', topology('b', [consumer('r'), consumer('q', ", previousTopology: 'a'")]));
  expect(brief(await project.krt('synth'))).toEqual({ code: 0, stderr: '' });
  // terraform apply in generated/terraform/a and /b: the committed stacks name no backend, so
  // their state is terraform.tfstate in those folders, not cdktf's terraform.<stack>.tfstate.
  const committed = builtStack(project, 'a', 'generated/terraform/a/cdk.tf.json')!;
  expect(committed.statePath).toBeUndefined();
  expect(path.basename(deployed.a.statePath!)).toBe('terraform.a.tfstate');
  project.write('topologies/b.ts', topology('b', [consumer('r'), consumer('q')]));
  expect(brief(await project.krt('synth', '--applied', 'a'))).toEqual({ code: 0, stderr: '' });

  const cdktf = await project.krt('cdktf');
  // cdktf's state for 'a' is what it deployed in step 1: nothing else wrote terraform.a.tfstate.
  const built = cdktf.code === 0 ? builtStack(project, 'a')! : undefined;
  if (built) expect(built.statePath).toBe(deployed.a.statePath);
  const effects = built ? applyOver(deployed.a, built, topicsOf(deployed.a, deployed.b)) : [];
  // On 6ac2c0d: exit 0, and the deploy of 'a' destroys 'q.events.dlq', 'q.events.dlq.audit', 'q.events.retry.10m', 'q.events.retry.1m'.
  expect({ code: cdktf.code, effects }).toEqual({ code: 1, effects: [] });
});
