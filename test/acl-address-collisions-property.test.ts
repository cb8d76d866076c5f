import fc from 'fast-check';
import { compileTopologyFile } from '../src/compile';
import { aclRules } from '../src/model/acls';
import type { TopologyModel } from '../src/model/types';
import { aclResourceId, aclResourceIds } from '../src/naming';
import { checkProject } from '../src/validate/project-rules';

/*
 * The ACL address check runs on every synth over every topology, so it first answers
 * whether a stack has a collision at all in one pass over its grants, and words the
 * collisions only when it has. These properties hold the quick answer to the plain one:
 * the rules as the Terraform emitter gets them, two different ones under one address.
 */
const RUNS = Number(process.env.KRT_PROPERTY_RUNS ?? 200);

/** Names made of the characters that matter: those an address keeps, and those it replaces ('.', ':', '/'). */
const nameArb = fc.stringMatching(/^[ab1._:/-]{0,6}$/);

describe('the ACL address of many ACLs at once', () => {
  it('is the address of each ACL alone, for any names', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ principalName: nameArb, operation: fc.constantFrom('Read', 'Write', 'Describe', 'DescribeConfigs'), resourceType: fc.constantFrom('Topic', 'Group', 'Cluster'), resourceName: nameArb }), { maxLength: 20 }),
        (acls) => {
          const idOf = aclResourceIds();
          expect(acls.map((acl) => idOf(acl))).toEqual(acls.map((acl) => aclResourceId(acl)));
        },
      ),
      { numRuns: RUNS },
    );
  });
});

const SUFFIXES = ['svc', 'svc2', 'x'];
const separatorArb = fc.constantFrom('.', '_', '-', '');
const consumerArb = fc.record({
  principal: fc.tuple(fc.constantFrom('billing', 'billing.x', 'billing_x', '1billing', '_1billing'), separatorArb, fc.constantFrom(...SUFFIXES)).map(([a, s, b]) => `User:${a}${s}${b}`),
  group: fc.option(fc.tuple(fc.constantFrom('orders', 'orders.a', 'orders_a'), separatorArb, fc.constantFrom('g', 'h')).map(([a, s, b]) => `${a}${s}${b}`), { nil: undefined }),
  ladder: fc.constantFrom(['1m'], ['10s', '1m']),
  // Consumers of one main topic share its Read ACL's resource, so their principals meet there.
  topic: fc.constantFrom('orders.confirmed', 'orders.created'),
});

function topologyOf(consumers: readonly { principal: string; group: string | undefined; ladder: readonly string[]; topic: string }[]): TopologyModel {
  const spec = {
    name: 'orders',
    owner: { team: 'orders', onCall: '#orders' },
    runbookBaseUrl: 'https://runbooks.example.com/kafka',
    consumers: consumers.map((c, i) => ({
      name: `consumer-${i}`,
      topic: { name: c.topic, partitions: 3 },
      principal: c.principal,
      ...(c.group === undefined ? {} : { group: `${c.group}-${i % 2}` }),
      ladder: c.ladder,
    })),
  };
  const compiled = compileTopologyFile('topologies/orders.ts', spec);
  if (!compiled.topology) throw new Error(compiled.diagnostics.map((d) => d.message).join('\n'));
  return compiled.topology;
}

/** The plain answer: two different rules of the stack under one Terraform address. */
function rulesShareAnAddress(topology: TopologyModel): boolean {
  const seen = new Map<string, string>();
  return aclRules(topology).some((rule) => {
    const id = aclResourceId(rule);
    const rule_ = `${rule.principal}\0${rule.resourceType}\0${rule.resourceName}\0${rule.operation}`;
    const other = seen.get(id);
    seen.set(id, other ?? rule_);
    return other !== undefined && other !== rule_;
  });
}

describe('validation of a topology whose ACLs may share Terraform addresses', () => {
  it('refuses it exactly when two of its rules share an address', () => {
    fc.assert(
      fc.property(fc.array(consumerArb, { minLength: 1, maxLength: 4 }), (consumers) => {
        const topology = topologyOf(consumers);
        const refused = checkProject({ topologies: [topology] }).some((d) => d.message.includes('would give their ACLs one Terraform address'));
        expect(refused).toBe(rulesShareAnAddress(topology));
      }),
      { numRuns: RUNS },
    );
  });

  it('finds the collision of billing.svc and billing_svc, and none between billing.svc and billing-svc', () => {
    const collide = topologyOf([
      { principal: 'User:billing.svc', group: undefined, ladder: ['1m'], topic: 'orders.confirmed' },
      { principal: 'User:billing_svc', group: undefined, ladder: ['1m'], topic: 'orders.confirmed' },
    ]);
    const apart = topologyOf([
      { principal: 'User:billing.svc', group: undefined, ladder: ['1m'], topic: 'orders.confirmed' },
      { principal: 'User:billing-svc', group: undefined, ladder: ['1m'], topic: 'orders.confirmed' },
    ]);
    expect(rulesShareAnAddress(collide)).toBe(true);
    expect(checkProject({ topologies: [collide] }).map((d) => d.message)).toContainEqual(expect.stringContaining("principals 'User:billing.svc' and 'User:billing_svc' would give their ACLs one Terraform address"));
    expect(rulesShareAnAddress(apart)).toBe(false);
    expect(checkProject({ topologies: [apart] }).filter((d) => d.message.includes('Terraform address'))).toEqual([]);
  });
});
