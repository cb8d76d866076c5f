import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * What was applied is the committed generated/terraform/<stack>/cdk.tf.json, not the model
 * snapshot. When the two disagree (generated/ edited by hand and applied, or a merge that
 * kept one side's snapshot and the other side's stacks), the guards judge against the
 * committed stack, as Terraform will. (Found by an attack: the guard used to synthesize
 * "before" from the snapshot alone, and the next synth deleted the topic unseen.)
 */
describe('a committed stack that holds a topic the model snapshot does not', () => {
  let project: ScratchProject;
  beforeEach(() => {
    project = new ScratchProject();
    // The applied stack of 'orders' holds one more tier than the snapshot says: orders.confirmed.retry.2h.
    const file = 'generated/terraform/orders/cdk.tf.json';
    const stack = JSON.parse(project.read(file)) as { resource: { kafka_topic: Record<string, Record<string, unknown>> } };
    const tier = stack.resource.kafka_topic.orders_confirmed_retry_1h!;
    stack.resource.kafka_topic.orders_confirmed_retry_2h = { ...tier, '//': { metadata: { path: 'orders/orders_confirmed_retry_2h', uniqueId: 'orders_confirmed_retry_2h' } }, name: 'orders.confirmed.retry.2h' };
    project.write(file, `${JSON.stringify(stack, null, 2)}\n`);
  });
  afterEach(() => project.remove());

  it('makes krt synth --check say generated/ is out of date', async () => {
    const check = await project.krt('synth', '--check');
    expect(check.code).not.toBe(0);
    expect(check.stderr).toContain('generated/terraform/orders/cdk.tf.json');
  });

  it('makes krt plan refuse the deletion of orders.confirmed.retry.2h and say why it sees that topic', async () => {
    const plan = await project.krt('plan');
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain("stack 'orders' would delete 'orders.confirmed.retry.2h' with every record in it");
    expect(plan.stdout).toContain('the committed stack terraform/orders/cdk.tf.json holds it, which the model snapshot does not name');
  });

  it('makes krt synth refuse to write a stack that deletes orders.confirmed.retry.2h', async () => {
    const synth = await project.krt('synth');
    expect(synth.code).not.toBe(0);
    expect(project.read('generated/terraform/orders/cdk.tf.json')).toContain('orders.confirmed.retry.2h');
  });
});

describe('a committed stack that gives a topic more partitions than the model snapshot', () => {
  let project: ScratchProject;
  beforeEach(() => {
    project = new ScratchProject();
    project.edit('generated/terraform/orders/cdk.tf.json', '"partitions": 12', '"partitions": 24');
  });
  afterEach(() => project.remove());

  it('makes krt synth refuse to shrink it back, which would replace the topic with its records', async () => {
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain('would shrink from 24 to 12 partitions');
    expect(synth.stderr).toContain('gives it 24 partitions where the model snapshot says 12');
    expect(project.read('generated/terraform/orders/cdk.tf.json')).toContain('"partitions": 24');
  });
});
