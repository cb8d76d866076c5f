import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { guardChanges } from '../../src/plan';
import { exampleModel, terraformIn, terraformRoot, terraformVars } from '../helpers/kafka';
import { terraformTooling } from '../helpers/tools';

jest.setTimeout(120_000);

/** `terraform plan` of a copy of the applied orders stack (state included) whose JSON was edited. */
function planEdited(edit: (stack: { resource: { kafka_topic: Record<string, { partitions: number }> } }) => void): { code: number; output: string } {
  terraformIn('orders', ['version']); // the working copy exists and is initialized
  const { terraform, env } = terraformTooling();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-guard-'));
  cpSync(path.join(terraformRoot(), 'orders'), dir, { recursive: true });
  const file = path.join(dir, 'cdk.tf.json');
  const stack = JSON.parse(readFileSync(file, 'utf8'));
  edit(stack);
  writeFileSync(file, JSON.stringify(stack));
  try {
    return { code: 0, output: execFileSync(terraform, ['plan', ...terraformVars(), '-input=false', '-no-color'], { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { code: e.status, output: `${e.stdout}${e.stderr}` };
  }
}

describe('prevent_destroy on every topic krt generates, with real Terraform and the real provider', () => {
  it('stops a plan that would destroy the stack, naming the DLQ and its audit log', () => {
    // -lock=false: other tests plan in this working copy at the same time; a plan writes no state.
    const plan = terraformIn('orders', ['plan', '-destroy', '-lock=false', ...terraformVars()]);
    expect(plan.code).not.toBe(0);
    expect(plan.output).toContain('Instance cannot be destroyed');
    expect(plan.output).toContain('kafka_topic.orders_confirmed_dlq');
    expect(plan.output).toContain('kafka_topic.orders_confirmed_dlq_audit');
  });

  it('stops a plan that would replace the DLQ: the provider forces a new topic when partitions go down', () => {
    const plan = planEdited((stack) => (stack.resource.kafka_topic.orders_confirmed_dlq!.partitions = 6));
    expect(plan.code).not.toBe(0);
    expect(plan.output).toContain('Instance cannot be destroyed');
    expect(plan.output).toContain('kafka_topic.orders_confirmed_dlq');
  });

  it('stops a plan that would replace a tier whose partitions go down, and krt synth refuses the spec edit that leads there', async () => {
    const plan = planEdited((stack) => (stack.resource.kafka_topic['orders_confirmed_retry_1m']!.partitions = 6));
    expect(plan.code).not.toBe(0);
    expect(plan.output).toContain('Instance cannot be destroyed');
    expect(plan.output).toContain('kafka_topic.orders_confirmed_retry_1m');
    const model = await exampleModel();
    const shrunk = JSON.parse(JSON.stringify(model)) as { topologies: { consumers: { tiers: { name: string; partitions: number }[] }[] }[] };
    shrunk.topologies.flatMap((t) => t.consumers).flatMap((c) => c.tiers).find((t) => t.name === 'orders.confirmed.retry.1m')!.partitions = 6;
    expect(guardChanges(model, shrunk as never).map((d) => d.message)).toEqual([expect.stringMatching(/^'orders\.confirmed\.retry\.1m' would shrink from 12 to 6 partitions/)]);
  });
});
