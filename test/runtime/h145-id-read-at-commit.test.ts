import { withTopicIds } from '../../src/connection/topic-ids';
import { discardRecords } from '../../src/dlq/replay';
import { DlqSession } from '../../src/dlq/session';
import type { DlqRecord } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

/**
 * h145 review: where the Confluent client is installed, each step check reads the DLQ's id
 * through a new short-lived connection of a second client. One read that fails (a broker
 * restarting, a connection reset) at the check between a step's audit and its commit failed
 * the step with its records published and audited but not committed: the next run lists
 * them, and a replay publishes them again. Before ids that check used only the session's
 * kafkajs admin (retried by kafkajs). A transient failure of the id read is read again.
 */
function setUp(): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  double.reportsTopicIds = true;
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  for (let i = 0; i < 10; i++) {
    double.append(consumer.dlq.name, i % 2, {
      key: `k-${i}`,
      value: `value-${i}`,
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(i % 2), [HEADERS.originalOffset]: String(100 + i), [HEADERS.errorClass]: 'DownstreamTimeout' },
    });
  }
  return { consumer, double };
}

const byValue = (records: readonly DlqRecord[]) => [...records].sort((a, b) => a.value!.toString().localeCompare(b.value!.toString()));

async function listed(double: DlqKafkaDouble, consumer: ConsumerModel): Promise<string[]> {
  const session = await DlqSession.open(double.kafka(), consumer);
  await session.close();
  return session.records.map((r) => r.value!.toString()).sort();
}

describe('a step whose id read fails once at its commit check', () => {
  it('is committed all the same: its records are not listed again', async () => {
    const { consumer, double } = setUp();
    // Two records handled before: the group holds commits, so its state, not the audit log, decides.
    {
      const session = await DlqSession.open(double.kafka(), consumer);
      await discardRecords(double.kafka(), session, byValue(session.records).slice(0, 2), { reason: 'before', by: 'tester' });
      await session.close();
    }
    // The CLI's client: ids read through a second connection, which fails once, right after the step's audit.
    const auditSends = () => double.sends.filter((s) => s.topic === consumer.dlqAudit.name).length;
    const before = auditSends();
    let failed = false;
    const plain = double.kafka();
    const read = async (topic: string): Promise<string | undefined> => {
      // The floors' send, then the step's: the next read is the commit's check.
      if (!failed && auditSends() - before === 2) {
        failed = true;
        throw Object.assign(new Error('Local: Broker transport failure'), { code: -195 });
      }
      const admin = plain.admin();
      const [described] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics as { topicId?: string }[];
      return described?.topicId;
    };
    const kafka = withTopicIds(double.kafka(), read);
    const session = await DlqSession.open(kafka, consumer);
    expect(session.topicId).toBeDefined();
    const chosen = byValue(session.records).slice(0, 2).map((r) => r.value!.toString());
    try {
      await discardRecords(kafka, session, byValue(session.records).slice(0, 2), { reason: 'now', by: 'tester' });
    } catch {
      // Seen without the fix: "Local: Broker transport failure" after the step's audit.
    } finally {
      await session.close();
    }
    expect(failed).toBe(true);
    const after = await listed(double, consumer);
    expect(after.filter((v) => chosen.includes(v))).toEqual([]);
  });
});
