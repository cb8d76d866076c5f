import { ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/*
 * An ACL's Terraform address keeps the letters, digits, '_' and '-' of the principal and
 * resource names, so two principals (or groups) differing only in '.' and '_' would share
 * one address for the same grant: validation refuses them in one sentence naming both
 * (findings 9e55d34 and f064b08: the spec was accepted and synth died in cdktf's construct check).
 */
describe('two principals whose names differ only in . and _', () => {
  let project: ScratchProject;
  beforeEach(() => {
    project = new ScratchProject();
    project.edit('topologies/orders.ts', "principal: 'User:billing',", "principal: 'User:billing.svc',");
    project.edit(
      'topologies/orders.ts',
      '\n  ],',
      `
    {
      name: 'billing-audit',
      topic: { name: 'orders.confirmed', partitions: 12 },
      principal: 'User:billing_svc',
      retryTopicBase: 'orders.confirmed.billing-audit',
      ladder: ['1m'],
    },
  ],`,
    );
  });
  afterEach(() => project.remove());

  it('are refused by krt validate with one sentence naming both principals', async () => {
    const validate = await project.krt('validate');
    expect(validate.code).toBe(1);
    expect(validate.stderr).toMatch(/User:billing\.svc.*User:billing_svc|User:billing_svc.*User:billing\.svc/);
  });

  it('makes krt synth answer with an exit code and a sentence, not the construct error of cdktf', async () => {
    const synth = await project.krt('synth').catch((error: Error) => ({ code: -1, stdout: '', stderr: error.message }));
    expect(synth.code).toBe(1);
    expect(synth.stderr).not.toContain('There is already a Construct');
  });
});

/* The same collision through consumer groups: one principal, groups billing.orders and billing_orders. */
describe('two consumer groups of one principal whose names differ only in . and _', () => {
  let project: ScratchProject;
  beforeEach(() => {
    project = new ScratchProject();
    project.edit('topologies/orders.ts', "principal: 'User:billing',", "principal: 'User:billing',\n      group: 'billing.orders',");
    project.edit(
      'topologies/orders.ts',
      '\n  ],',
      `
    {
      name: 'billing-audit',
      topic: { name: 'orders.confirmed', partitions: 12 },
      principal: 'User:billing',
      group: 'billing_orders',
      retryTopicBase: 'orders.confirmed.billing-audit',
      ladder: ['1m'],
    },
  ],`,
    );
  });
  afterEach(() => project.remove());

  it('makes krt synth answer with an exit code and a sentence naming both groups, not the construct error of cdktf', async () => {
    const synth = await project.krt('synth').catch((error: Error) => ({ code: -1, stdout: '', stderr: error.message }));
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain("groups 'billing.orders' and 'billing_orders' would give their ACLs one Terraform address");
    expect(synth.stderr).not.toContain('There is already a Construct');
  });
});
