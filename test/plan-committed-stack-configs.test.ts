import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * The committed stacks are what was applied, and a topology whose committed stack differs
 * from the snapshot in anything Terraform sets (partitions, replication factor, any config)
 * is judged against the committed one (an emergency `terraform apply` of a longer DLQ
 * retention, a merge that kept one side's stacks). Finding f5d9da1: it was compared on name
 * and partitions only, so `krt plan` said "no changes" while synth wrote back a retention
 * that deletes records.
 */
describe('a committed stack that keeps the DLQ longer than the model snapshot says', () => {
  let project: ScratchProject;
  const ninetyDays = String(90 * 24 * 3600 * 1000);
  beforeEach(() => {
    project = new ScratchProject();
    // 28 days (2419200000 ms) in the snapshot; applied by hand as 90 days.
    project.edit('generated/terraform/orders/cdk.tf.json', '"retention.ms": "2419200000"', `"retention.ms": "${ninetyDays}"`);
  });
  afterEach(() => project.remove());

  it('makes krt plan tell that the DLQ would keep records 28 days instead of 90', async () => {
    const plan = await project.krt('plan');
    expect(plan.stdout).toContain("'orders.confirmed.dlq' keeps records");
  });

  it('is judged as soon as any other edit changes the topology', async () => {
    project.edit('topologies/orders.ts', "onCall: '#billing-oncall'", "onCall: '#billing-pager'");
    const plan = await project.krt('plan');
    expect(plan.stdout).toContain("'orders.confirmed.dlq' keeps records 28d (retention.ms) instead of 90d");
  });
});

describe('a committed stack that compacts a tier the model snapshot deletes by age', () => {
  let project: ScratchProject;
  beforeEach(() => {
    project = new ScratchProject();
    const file = 'generated/terraform/orders/cdk.tf.json';
    const stack = JSON.parse(project.read(file)) as { resource: { kafka_topic: Record<string, { config: Record<string, string> }> } };
    stack.resource.kafka_topic.orders_confirmed_retry_1h!.config['cleanup.policy'] = 'compact';
    project.write(file, `${JSON.stringify(stack, null, 2)}\n`);
  });
  afterEach(() => project.remove());

  it('makes krt plan call the switch back to delete destructive', async () => {
    const plan = await project.krt('plan');
    expect({ code: plan.code, told: /switches cleanup\.policy from 'compact' to 'delete'/.test(plan.stdout) }).toEqual({ code: 3, told: true });
  });
});
