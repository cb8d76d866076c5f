import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ConfigResourceTypes, ResourcePatternTypes } from 'kafkajs';
import type { Admin } from 'kafkajs';
import { aclRules } from '../../src/model/acls';
import { dlqReaderGroupName } from '../../src/naming';
import type { ProjectModel } from '../../src/model/types';
import { exampleModel, kafkaAsAdmin, terraformPlan } from '../helpers/kafka';

jest.setTimeout(120_000);

let model: ProjectModel;
let admin: Admin;
beforeAll(async () => {
  model = await exampleModel();
  admin = kafkaAsAdmin().admin();
  await admin.connect();
});
afterAll(() => admin.disconnect());

describe('the generated Terraform, applied to a real broker', () => {
  it('created every tier, DLQ and DLQ audit log with the partitions the spec says', async () => {
    const topics = model.topologies.flatMap((t) => t.consumers.flatMap((c) => [...c.tiers, c.dlq, c.dlqAudit]));
    const { topics: metadata } = await admin.fetchTopicMetadata({ topics: topics.map((t) => t.name) });
    const partitions = Object.fromEntries(metadata.map((t) => [t.name, t.partitions.length]));
    expect(partitions).toEqual(Object.fromEntries(topics.map((t) => [t.name, t.partitions])));
  });

  it('set retention.ms, cleanup.policy and min.insync.replicas on them', async () => {
    const topics = model.topologies.flatMap((t) => t.consumers.flatMap((c) => [...c.tiers, c.dlq, c.dlqAudit]));
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: t.name, configNames: ['retention.ms', 'cleanup.policy', 'min.insync.replicas'] })),
    });
    const actual = Object.fromEntries(described.resources.map((r) => [r.resourceName, Object.fromEntries(r.configEntries.map((e) => [e.configName, e.configValue]))]));
    for (const topic of topics) {
      expect(actual[topic.name]).toEqual({ 'retention.ms': String(topic.retentionMs), 'cleanup.policy': 'delete', 'min.insync.replicas': '1' });
    }
  });

  it('created every ACL of the consumer, replay and monitor principals, and no other on their topics and groups', async () => {
    for (const topology of model.topologies) {
      for (const rule of aclRules(topology)) {
        const found = await admin.describeAcls({
          resourceType: AclResourceTypes[rule.resourceType.toUpperCase() as 'TOPIC' | 'GROUP' | 'CLUSTER'],
          resourceName: rule.resourceName,
          resourcePatternType: ResourcePatternTypes.LITERAL,
          principal: rule.principal,
          host: '*',
          operation: AclOperationTypes[rule.operation.replace(/(?<=.)([A-Z])/g, '_$1').toUpperCase() as 'READ' | 'WRITE' | 'DESCRIBE' | 'DESCRIBE_CONFIGS'],
          permissionType: AclPermissionTypes.ALLOW,
        });
        expect({ rule: `${rule.principal} ${rule.operation} ${rule.resourceName}`, found: found.resources.length }).toEqual({ rule: `${rule.principal} ${rule.operation} ${rule.resourceName}`, found: 1 });
      }
    }
    const all = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    // Other tests grant ACLs on topics of their own; only the example topologies' resources count here.
    const ours = new Set(model.topologies.flatMap((t) => t.consumers.flatMap((c) => [c.mainTopic.name, ...c.tiers.map((x) => x.name), c.dlq.name, c.dlqAudit.name, ...Object.values(c.groups), dlqReaderGroupName(c.groups.replay), 'kafka-cluster'])));
    const principals = new Set(model.topologies.flatMap((t) => aclRules(t).map((r) => r.principal)));
    const count = all.resources.filter((r) => ours.has(r.resourceName)).reduce((n, r) => n + r.acls.filter((a) => principals.has(a.principal)).length, 0);
    expect(count).toBe(model.topologies.reduce((n, t) => n + aclRules(t).length, 0));
  });

  it.each(['orders', 'analytics'])('plans no change on a second run of %s', (stack) => {
    const plan = terraformPlan(stack);
    expect(plan.output).toContain('No changes.');
    expect(plan.code).toBe(0);
  });
});
