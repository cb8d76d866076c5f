import { rmSync } from 'node:fs';
import path from 'node:path';
import { applyOver, builtStack, topicsOf } from './helpers/built-stacks';
import type { BuiltStack } from './helpers/built-stacks';
import { eachProjectWithCdktfOut, ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * cdktf deploy after changes applied with terraform apply in generated/: the two ways keep
 * separate Terraform states, so krt cdktf refuses, and its way out moves the state first.
 *
 * The scene (attack 37, finding 3): a.ts (p, q), b.ts (r), krt synth and cdktf deploy; q moves
 * to b (previousTopology: 'a'), krt synth, and the engineer applies it with terraform apply in
 * generated/terraform/a and /b; previousTopology dropped with krt synth --applied a; then
 * cdktf deploy (krt cdktf) again.
 *
 * Attack 37 took the refusal there for a defect, and 6ac2c0d (reverted) built the committed
 * output through the chain of accepted synths. Review 54 showed the premise wrong: the
 * committed stacks name no backend, so terraform apply in generated/terraform/<stack> keeps
 * terraform.tfstate in that folder, while cdktf deploy applies to terraform.<stack>.tfstate
 * in the project folder, which still holds q's topics in stack 'a': built, the committed
 * output makes that deploy destroy them. The refusal is right. Its way out was not (before
 * session 54 too): "delete cdktf.out once terraform plan in generated/ shows no changes"
 * led to the same deletion; it now says to copy each such stack's state over cdktf's first.
 */

jest.setTimeout(180_000);

let project: ScratchProject;
eachProjectWithCdktfOut((p) => (project = p));

const brief = (r: { code: number; stderr: string }) => ({ code: r.code, stderr: r.stderr });

/** The state `terraform apply` of `stack` leaves over `state`: what it declares, once its imports and forgets are done. */
function applied(state: BuiltStack, stack: BuiltStack): BuiltStack {
  expect(applyOver(state, stack, topicsOf(state, stack))).toEqual([]);
  return { ...stack, imports: new Map(), forgets: new Set() };
}

/**
 * The scene up to the second cdktf deploy: what cdktf deployed first (its state), and the
 * states terraform apply in generated/ left after the move.
 */
async function moveAppliedWithTerraform(): Promise<{ deployed: Record<'a' | 'b', BuiltStack>; appliedInGenerated: Record<'a' | 'b', BuiltStack> }> {
  project.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q')]));
  project.write('topologies/b.ts', topology('b', [consumer('r')]));
  expect(brief(await project.krt('synth'))).toEqual({ code: 0, stderr: '' });
  expect((await project.krt('cdktf')).code).toBe(0);
  const deployed = { a: builtStack(project, 'a')!, b: builtStack(project, 'b')! };
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  project.write('topologies/b.ts', topology('b', [consumer('r'), consumer('q', ", previousTopology: 'a'")]));
  expect(brief(await project.krt('synth'))).toEqual({ code: 0, stderr: '' });
  const committed = { a: builtStack(project, 'a', 'generated/terraform/a/cdk.tf.json')!, b: builtStack(project, 'b', 'generated/terraform/b/cdk.tf.json')! };
  const appliedInGenerated = { a: applied(deployed.a, committed.a), b: applied(deployed.b, committed.b) };
  project.write('topologies/b.ts', topology('b', [consumer('r'), consumer('q')]));
  expect(brief(await project.krt('synth', '--applied', 'a'))).toEqual({ code: 0, stderr: '' });
  return { deployed, appliedInGenerated };
}

it('keeps the two states apart: the committed stacks name no backend, cdktf\'s builds keep terraform.<stack>.tfstate', async () => {
  await moveAppliedWithTerraform();
  expect(builtStack(project, 'a', 'generated/terraform/a/cdk.tf.json')!.statePath).toBeUndefined();
  expect(path.basename(builtStack(project, 'a')!.statePath!)).toBe('terraform.a.tfstate');
});

it('refuses the next cdktf deploy, whose build would destroy from cdktf\'s state the topics the move took out of stack a', async () => {
  const { deployed } = await moveAppliedWithTerraform();
  const cdktf = await project.krt('cdktf');
  const built = cdktf.code === 0 ? builtStack(project, 'a') : undefined;
  // On 6ac2c0d: exit 0, and the deploy of 'a' destroys 'q.events.dlq', its audit log and its tiers.
  const effects = built ? applyOver(deployed.a, built, topicsOf(deployed.a, deployed.b)) : [];
  expect({ code: cdktf.code, effects }).toEqual({ code: 1, effects: [] });
  expect(cdktf.stderr).toContain("consumer 'q' moved from topology 'a' to 'b'");
});

it('says that terraform apply changed another state and to copy it over cdktf\'s before deleting cdktf.out; followed, the deploy destroys nothing', async () => {
  const { appliedInGenerated } = await moveAppliedWithTerraform();
  const refused = await project.krt('cdktf');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("changed that folder's state (terraform.tfstate there), not cdktf's (terraform.<stack>.tfstate in the project folder)");
  expect(refused.stderr).toContain('alone would let cdktf deploy destroy what those applies moved');
  expect(refused.stderr).toContain("first copy each such stack's generated/terraform/<stack>/terraform.tfstate over terraform.<stack>.tfstate, then delete");

  // As it says: cdktf's states take what terraform apply left, then cdktf.out goes.
  rmSync(project.path('cdktf.out'), { recursive: true, force: true });
  expect((await project.krt('cdktf')).code).toBe(0);
  const existing = topicsOf(appliedInGenerated.a, appliedInGenerated.b);
  expect(applyOver(appliedInGenerated.a, builtStack(project, 'a')!, existing)).toEqual([]);
  expect(applyOver(appliedInGenerated.b, builtStack(project, 'b')!, existing)).toEqual([]);
});
