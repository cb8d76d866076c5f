/**
 * The DLQ's handled state lives in the replay group's committed offsets (offset and
 * metadata). The replay group has members only while a `krt dlq` command runs, so a broker
 * expires its offsets `offsets.retention.minutes` after the last command: 7 days by
 * default, while a DLQ keeps its records 28 days by default. Expiry is played here by the
 * admin API's DeleteGroups, which leaves the group as expiry does (seen on a broker with
 * offsets.retention.minutes=1: after a minute the group's offset read -1 with no metadata,
 * and `krt dlq inspect` listed every discarded record as unhandled again).
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { ADMIN_USER, kafkaLibs, passwordOf } from '../../scripts/kafka/broker';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { runCli } from '../../src/cli/program';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { bootstrapServers, kafkaAsAdmin } from '../helpers/kafka';
import { ScratchProject } from '../helpers/project';

jest.setTimeout(180_000);

/**
 * Deletes one partition's committed offset of a group, as `kafka-consumer-groups
 * --delete-offsets` does (OffsetDelete): kafkajs 2.2.4 has no such request, so the broker's
 * own Java admin client does it, run from source with the broker's jars.
 */
function deletePartitionOffsets(group: string, topic: string, partition: number): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'krt-delete-offsets-'));
  const source = path.join(dir, 'DeleteOffsets.java');
  writeFileSync(
    source,
    `import java.util.*;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
public class DeleteOffsets {
  public static void main(String[] a) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", a[0]);
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", "PLAIN");
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\\"" + a[1] + "\\" password=\\"" + a[2] + "\\";");
    try (Admin admin = Admin.create(p)) {
      admin.deleteConsumerGroupOffsets(a[3], Set.of(new TopicPartition(a[4], Integer.parseInt(a[5])))).all().get();
    }
  }
}
`,
  );
  execFileSync('java', ['-cp', `${kafkaLibs()}/*`, source, bootstrapServers(), ADMIN_USER, passwordOf(ADMIN_USER), group, topic, String(partition)], { stdio: 'pipe' });
}

/** A topology of one consumer (a fresh name from `prefix`) in the project, compiled: its model. */
async function consumerIn(project: ScratchProject, prefix: string, partitions: number): Promise<ConsumerModel> {
  const id = randomBytes(3).toString('hex');
  mkdirSync(project.path('topologies'));
  project.write(
    'topologies/idle.ts',
    `import { defineTopology } from 'kafka-retry-topology';
export default defineTopology({
  name: 'idle',
  owner: { team: 'billing', onCall: '#billing-oncall' },
  runbookBaseUrl: 'https://runbooks.example.com',
  consumers: [{ name: '${prefix}-${id}', topic: { name: '${prefix}-${id}.main', partitions: ${partitions} }, principal: 'User:billing', ladder: ['1m'] }],
});
`,
  );
  const result = await compileFiles(discoverTopologyFiles(project.dir), project.dir);
  if (!result.model) throw new Error(`the test topology does not compile: ${JSON.stringify(result.diagnostics)}`);
  return result.model.topologies[0]!.consumers[0]!;
}

/** `krt` run in-process in the project as the broker's admin: exit code and output. */
function krtAsAdmin(project: ScratchProject) {
  const env = { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: ADMIN_USER, KAFKA_SASL_PASSWORD: passwordOf(ADMIN_USER), KAFKA_SSL: 'false' };
  return async (...args: string[]) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, { cwd: project.dir, env, stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    return { code, stdout, stderr };
  };
}

describe('the handled state of a DLQ', () => {
  let project: ScratchProject | undefined;
  afterEach(() => project?.remove());

  /*
   * Found by the attack of session 56 (helper 129): after the replay group's offsets expired,
   * `krt dlq inspect` listed every record replayed or discarded before as unhandled again,
   * and `krt dlq replay --all` would have replayed them a second time. The commands now read
   * the handled state from the audit log when the group has no commit (src/dlq/session.ts
   * openingStates), and the next replay or discard writes it back to the group. The monitor
   * reads the audit log too (src/runtime/monitor-handled-states.ts), so its gauges stay at
   * what nobody handled.
   */
  it('keeps discarded records handled after the broker expired the idle replay group offsets, and the next replay writes the state back to the group', async () => {
    project = new ScratchProject(false);
    const consumer = await consumerIn(project, 'idle', 1);
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      await createTopicsWithLeaders(
        admin,
        [consumer.mainTopic.name, ...consumer.tiers.map((t) => t.name), consumer.dlq.name, consumer.dlqAudit.name].map((topic) => ({ topic, numPartitions: 1, replicationFactor: 1 })),
      );
      const producer = kafkaAsAdmin().producer();
      await producer.connect();
      await producer.send({
        topic: consumer.dlq.name,
        acks: -1,
        messages: [0, 1, 2].map((i) => ({
          key: `order-${i}`,
          value: `dead-${i}`,
          partition: 0,
          headers: { [HEADERS.attempt]: '1', [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'OrderValidationError' },
        })),
      });
      await producer.disconnect();
      const krt = krtAsAdmin(project);
      const unhandled = async () => (JSON.parse((await krt('dlq', 'inspect', consumer.name, '--json')).stdout) as { records: { value: string }[] }).records.map((r) => r.value);

      expect((await krt('dlq', 'discard', consumer.name, '--ids', '0:0,0:1,0:2', '--reason', 'duplicates of settled orders', '--by', 'test')).code).toBe(0);
      expect(await unhandled()).toEqual([]);

      // A week without a DLQ command: the broker drops the idle group's offsets.
      await admin.deleteGroups([consumer.groups.replay]);

      expect(await unhandled()).toEqual([]);
      const errors: unknown[] = [];
      const monitor = createDlqMonitor(consumerDescriptor(consumer), { port: kafkajsMonitorPort(kafkaAsAdmin(), consumer.groups.monitor), registry: new Registry(), onError: (e) => errors.push(e) });
      expect(await monitor.poll()).toMatchObject({ dlqSize: 0, dlqExpired: 0 });
      expect(errors).toEqual([]);
      // A replay that selects nothing writes the state back, so the monitor reads it from the group again.
      expect((await krt('dlq', 'replay', consumer.name, '--error-class', 'NoSuchError')).code).toBe(0);
      const [committed] = await admin.fetchOffsets({ groupId: consumer.groups.replay, topics: [consumer.dlq.name] });
      expect(committed!.partitions).toEqual([expect.objectContaining({ partition: 0, offset: '3' })]);
    } finally {
      await admin.disconnect();
    }
  });
  /*
   * What the tools rely on, played on a real broker: DeleteConsumerGroupOffsets of one
   * partition leaves the others' commits (the tools then take that partition alone from the
   * audit log), and deleting the DLQ topic drops the group's offsets of it (a topic made again
   * starts with no commit; its records are then told from the old topic's by their marks).
   */
  it('keeps one partition\'s handled records after an admin deleted its offsets alone, and lists the records of the DLQ topic made again, the monitor counting them too', async () => {
    project = new ScratchProject(false);
    const consumer = await consumerIn(project, 'split', 2);
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    try {
      const dlqTopic = { topic: consumer.dlq.name, numPartitions: 2, replicationFactor: 1 };
      await createTopicsWithLeaders(admin, [
        ...[consumer.mainTopic.name, ...consumer.tiers.map((t) => t.name)].map((topic) => ({ topic, numPartitions: 2, replicationFactor: 1 })),
        dlqTopic,
        { topic: consumer.dlqAudit.name, numPartitions: 1, replicationFactor: 1 },
      ]);
      const dead = (tag: string, partition: number) => ({
        key: `${tag}-${partition}`,
        value: `${tag}-${partition}`,
        partition,
        headers: { [HEADERS.attempt]: '1', [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(partition), [HEADERS.originalOffset]: '0', [HEADERS.errorClass]: 'OrderValidationError' },
      });
      // A topic just made may be led in the metadata before the broker's partition takes
      // produce requests (seen after other suites on the shared broker: NOT_LEADER_OR_FOLLOWER,
      // which writes nothing to that partition): sent again until it takes them, one record at
      // a time. A request for two partitions, one refused, writes the other's record, and a
      // retry (kafkajs's own, or this one) wrote it twice: the test then saw a record nobody
      // handled, about one run in six.
      const send = async (messages: ReturnType<typeof dead>[]) => {
        for (const message of messages) {
          const deadline = Date.now() + 30_000;
          for (;;) {
            try {
              await producer.send({ topic: consumer.dlq.name, acks: -1, messages: [message] });
              break;
            } catch (error) {
              if (!/not the leader/i.test(String((error as { cause?: unknown }).cause ?? error)) || Date.now() > deadline) throw error;
              await new Promise((resolve) => setTimeout(resolve, 500));
            }
          }
        }
      };
      await send([dead('old', 0), dead('old', 1)]);
      const krt = krtAsAdmin(project);
      const unhandled = async () => (JSON.parse((await krt('dlq', 'inspect', consumer.name, '--json')).stdout) as { records: { value: string }[] }).records.map((r) => r.value).sort();
      const commits = async () => (await admin.fetchOffsets({ groupId: consumer.groups.replay, topics: [consumer.dlq.name] }))[0]!.partitions.map((p) => [p.partition, p.offset]).sort();

      expect((await krt('dlq', 'discard', consumer.name, '--ids', '0:0,1:0', '--reason', 'duplicates', '--by', 'test')).code).toBe(0);
      expect(await commits()).toEqual([[0, '1'], [1, '1']]);

      deletePartitionOffsets(consumer.groups.replay, consumer.dlq.name, 1);
      expect(await commits()).toEqual([[0, '1'], [1, '-1']]);
      expect(await unhandled()).toEqual([]);
      // The monitor reads partition 1 from the audit log, the mark of the record its entry names checked.
      const errors: unknown[] = [];
      const monitor = createDlqMonitor(consumerDescriptor(consumer), { port: kafkajsMonitorPort(kafkaAsAdmin(), consumer.groups.monitor), registry: new Registry(), onError: (e) => errors.push(e) });
      expect((await monitor.poll()).dlqSize).toBe(0);
      expect((await krt('dlq', 'replay', consumer.name, '--error-class', 'NoSuchError')).code).toBe(0);
      expect(await commits()).toEqual([[0, '1'], [1, '1']]);

      // The DLQ topic deleted and made again under its name (outside Terraform), the audit log kept.
      await admin.deleteTopics({ topics: [consumer.dlq.name] });
      const deadline = Date.now() + 60_000;
      while (!(await createTopicsWithLeaders(admin, [dlqTopic]).catch(() => false))) {
        if (Date.now() > deadline) throw new Error(`${consumer.dlq.name} could not be created again within 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      await send([dead('new', 0), dead('new', 1)]);
      expect(await commits()).toEqual([[0, '-1'], [1, '-1']]);
      expect(await unhandled()).toEqual(['new-0', 'new-1']);
      // So does the monitor: the record it read before in partition 1 has another mark now.
      expect({ size: (await monitor.poll()).dlqSize, errors }).toEqual({ size: 2, errors: [] });
    } finally {
      await producer.disconnect();
      await admin.disconnect();
    }
  });

  /*
   * A DLQ written by a transactional producer holds a commit marker after each transaction.
   * The replay group's commit passes the markers next to handled records; the audit log named
   * only records, so once Kafka dropped the group's offsets the tools and the monitor counted
   * every marker as an unhandled record (session 59, helper 141: the audit now names the
   * no-record ranges a commit passes, and the fold takes them where a read saw no record there).
   * Played here on the broker, where kafkajs's reads, not a double's, tell markers from records.
   */
  it('counts no transaction marker of a transactional DLQ as unhandled after the broker dropped the replay group offsets', async () => {
    project = new ScratchProject(false);
    const consumer = await consumerIn(project, 'txdlq', 1);
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    const producer = kafkaAsAdmin().producer({ transactionalId: `txdlq-${randomBytes(3).toString('hex')}`, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      await createTopicsWithLeaders(
        admin,
        [consumer.mainTopic.name, ...consumer.tiers.map((t) => t.name), consumer.dlq.name, consumer.dlqAudit.name].map((topic) => ({ topic, numPartitions: 1, replicationFactor: 1 })),
      );
      // Six records in transactions of one and two: offsets 0 r, 1 marker, 2 r, 3 r, 4 marker, ... and a marker last.
      for (const batch of [[0], [1, 2], [3], [4, 5]]) {
        const tx = await producer.transaction();
        await tx.send({
          topic: consumer.dlq.name,
          acks: -1,
          messages: batch.map((i) => ({ key: `order-${i}`, value: `dead-${i}`, partition: 0, headers: { [HEADERS.attempt]: '1', [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'OrderValidationError' } })),
        });
        await tx.commit();
      }
      const krt = krtAsAdmin(project);
      const inspected = async () => JSON.parse((await krt('dlq', 'inspect', consumer.name, '--json')).stdout) as { records: { value: string }[]; expired: { total: number } };
      expect((await inspected()).records.map((r) => r.value)).toHaveLength(6);
      const ids = (await inspected()).records.map((r) => (r as unknown as { id: string }).id).join(',');
      expect((await krt('dlq', 'discard', consumer.name, '--ids', ids, '--reason', 'settled by hand', '--by', 'test')).code).toBe(0);

      // A week without a DLQ command: the broker drops the idle group's offsets.
      await admin.deleteGroups([consumer.groups.replay]);

      const after = await inspected();
      expect({ records: after.records.length, expired: after.expired.total }).toEqual({ records: 0, expired: 0 });
      const errors: unknown[] = [];
      const monitor = createDlqMonitor(consumerDescriptor(consumer), { port: kafkajsMonitorPort(kafkaAsAdmin(), consumer.groups.monitor), registry: new Registry(), onError: (e) => errors.push(e) });
      expect(await monitor.poll()).toMatchObject({ dlqSize: 0, dlqExpired: 0 });
      expect(errors).toEqual([]);
    } finally {
      await producer.disconnect();
      await admin.disconnect();
    }
  });
});
