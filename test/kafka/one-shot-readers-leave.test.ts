import { randomBytes } from 'node:crypto';
import type { Admin } from 'kafkajs';
import { readAuditLog } from '../../src/dlq/audit-log';
import type { ConsumerModel } from '../../src/model/types';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import { kafkaAsAdmin, produceAsAdmin } from '../helpers/kafka';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(120_000);

/**
 * The reads that join a group for one look and leave (the monitor's head records, the
 * console's audit log) give up after a timeout: here one that passes while the member still
 * joins. kafkajs stops nothing disconnected then: its runner starts fetching once the join
 * ends, a member nothing leaves, which keeps the process alive.
 */
describe('a one-shot reader that gives up while its member still joins', () => {
  let admin: Admin;
  let topic: string;
  beforeAll(async () => {
    admin = kafkaAsAdmin().admin();
    await admin.connect();
  });
  afterAll(() => admin.disconnect());
  beforeEach(async () => {
    topic = `oneshot-${randomBytes(4).toString('hex')}`;
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1, replicationFactor: 1 }]);
    await produceAsAdmin(topic, [{ key: 'k', value: 'v', partition: 0 }]);
  });

  /** The group's members a while after the read returned: longer than a fetch's wait, shorter than a session timeout. */
  async function membersLater(group: string): Promise<number> {
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    const [described] = (await admin.describeGroups([group])).groups;
    return described?.members.length ?? 0;
  }

  it("the monitor's head-record read leaves its group", async () => {
    const group = `${topic}.dlq-monitor`;
    await kafkajsMonitorPort(kafkaAsAdmin(), group, 1).timestampsAt(topic, [{ partition: 0, offset: '0' }]);
    expect(await membersLater(group)).toBe(0);
  });

  it("the console's audit-log read leaves its group", async () => {
    const group = `${topic}.dlq-reader`;
    const consumer = { dlqAudit: { name: topic } } as ConsumerModel;
    await expect(readAuditLog(kafkaAsAdmin(), consumer, group, 10, 1)).rejects.toThrow(/could not read .* any further/);
    expect(await membersLater(group)).toBe(0);
  });
});
