import { rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * A deleted topology file's stack is kept, empty, and its Terraform state holds what the
 * stack last held until someone applies it; krt cannot tell offline when that happens.
 * So the snapshot carries what it held, and declaring one of those topics again in
 * another topology waits until the operator says the kept stack was applied (--applied).
 */
describe('the kept stack of a deleted topology file, through the CLI', () => {
  let project: ScratchProject;
  const analyticsConsumer = `{
      name: 'analytics-orders',
      topic: { name: 'orders.confirmed', partitions: 12 },
      principal: 'User:analytics',
      retryTopicBase: 'orders.confirmed.analytics-orders',
      ladder: ['5s', '1m'],
      criticality: 'analytics',
    },
  ],`;
  beforeEach(async () => {
    project = new ScratchProject();
    project.edit('topologies/analytics.ts', "criticality: 'analytics',", "criticality: 'analytics',\n      decommissioned: true,");
    expect((await project.krt('synth')).code).toBe(0);
    rmSync(project.path('topologies/analytics.ts'));
    expect((await project.krt('synth')).code).toBe(0);
  });
  afterEach(() => project.remove());

  it('keeps in the snapshot what the kept stack last held', () => {
    const snapshot = JSON.parse(project.read('generated/.krt-model.json')) as { keptStacks?: { stack: string; mayHold?: { topics: { name: string }[] } }[] };
    const kept = (snapshot.keptStacks ?? []).find((k) => k.stack === 'analytics');
    expect(kept?.mayHold?.topics.map((t) => t.name)).toEqual(expect.arrayContaining(['orders.confirmed.analytics-orders.dlq', 'orders.confirmed.analytics-orders.retry.5s']));
  });

  it('refuses the consumer declared again in another topology until told the kept stack was applied, then writes it', async () => {
    project.edit('topologies/orders.ts', '\n  ],', `\n    ${analyticsConsumer}`);
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain("consumer 'analytics-orders' declares 'orders.confirmed.analytics-orders.dlq'");
    expect(synth.stderr).toContain("stack 'analytics', kept (empty) since its topology file was deleted, may still hold them in its Terraform state");
    const plan = await project.krt('plan');
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain("while the kept stack 'analytics' of a deleted topology may still hold them");

    expect((await project.krt('plan', '--applied', 'analytics')).code).toBe(0);
    const applied = await project.krt('synth', '--applied', 'analytics');
    expect(applied.code).toBe(0);
    expect(project.read('generated/terraform/orders/cdk.tf.json')).toContain('orders.confirmed.analytics-orders.dlq');
    expect(project.read('generated/.krt-model.json')).not.toContain('"mayHold"');
    // The kept stack is still generated, empty: applying it again changes nothing.
    expect(project.read('generated/terraform/analytics/cdk.tf.json')).not.toContain('kafka_topic');
    expect((await project.krt('synth', '--check')).code).toBe(0);
  });

  it('says which stacks are kept when --applied names another', async () => {
    const synth = await project.krt('synth', '--applied', 'analytcs');
    expect(synth.code).toBe(2);
    expect(synth.stderr).toContain("--applied analytcs: not a stack of the committed output (the stacks whose state may still hold what they no longer declare are 'analytics'); name only stacks you applied");
  });
});
