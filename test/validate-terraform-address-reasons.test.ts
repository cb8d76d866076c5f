import { aConsumer, aTopology, compile, problems } from './helpers/specs';

/*
 * Two names share a Terraform address for one of two reasons: characters an address
 * cannot hold are written '_', and a name starting with a digit or '-' gets a leading
 * '_'. The message says the reason that holds, not always the first.
 */
const twoConsumers = (first: Parameters<typeof aConsumer>[0], second: Parameters<typeof aConsumer>[0]) =>
  problems(compile(aTopology({ consumers: [aConsumer({ name: 'first', ladder: ['1m'], ...first }), aConsumer({ name: 'second', ladder: ['1m'], ...second })] })));

describe('topics that would share a Terraform address', () => {
  it("blame the leading '_' krt adds to a name starting with a digit, for 9a.dlq and _9a.dlq", () => {
    const found = twoConsumers({ topic: { name: '9a', partitions: 1 } }, { topic: { name: '9a', partitions: 1 }, retryTopicBase: '_9a', group: 'second' });
    expect(found).toContainEqual(expect.stringContaining("topics '9a.dlq' and '_9a.dlq' would be one Terraform resource of stack 'orders': '9a.dlq' starts with a digit, which an address cannot, so krt puts '_' before it; rename one"));
    expect(found.join('\n')).not.toContain("differ only in '.' and '_'");
  });

  it("blame '.' and '_' for orders.a.dlq and orders_a.dlq", () => {
    const found = twoConsumers({ topic: { name: 'orders.a', partitions: 1 } }, { topic: { name: 'orders_a', partitions: 1 } });
    expect(found).toContainEqual(expect.stringContaining("topics 'orders.a.dlq' and 'orders_a.dlq' would be one Terraform resource of stack 'orders': they differ only in '.' and '_', which an address writes alike, as '_'; rename one"));
  });

  it("blame both when both hold, for 9a.dlq and _9a_dlq", () => {
    const found = twoConsumers({ topic: { name: '9a', partitions: 1 } }, { topic: { name: '_9a_dlq', partitions: 1, managed: true } });
    expect(found.join('\n')).toContain("'9a.dlq' starts with a digit, which an address cannot, so krt puts '_' before it, and then they differ only in '.' and '_', which an address writes alike, as '_'");
  });
});

describe('principals whose ACLs would share a Terraform address', () => {
  it("blame the leading '_' for User:1billing and User:_1billing", () => {
    const found = twoConsumers({ principal: 'User:1billing' }, { principal: 'User:_1billing', retryTopicBase: 'orders.confirmed.second' });
    const message = found.find((p) => p.includes("principals 'User:1billing' and 'User:_1billing'"));
    expect(message).toContain("'User:1billing' starts with a digit, which an address cannot, so krt puts '_' before it");
    expect(message).not.toContain("'.' and '_'");
  });
});
