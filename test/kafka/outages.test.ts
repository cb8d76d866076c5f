import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from 'kafkajs';
import type { AclEntry } from 'kafkajs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_USER, readBrokerInfo, restartBroker, startBroker, stopBroker } from '../../scripts/kafka/broker';
import { runOutage } from '../../bench/outage';
import { DEFAULT_COMMIT_POLICY } from '../../src/runtime/offset-committer';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { eventually } from '../helpers/eventually';
import { createAclsInEffect, createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { CLIENTS, eachClient } from './clients';

jest.setTimeout(5 * 60_000);

const USER = 'billing';

/** Fresh topics with the least-privilege ACLs of a consumer, for the principal `billing`. */
async function consumerWithAcls(): Promise<{ d: ConsumerDescriptor; dlqWrite: AclEntry }> {
  const d = testDescriptor('outage', [1]);
  const acl = (resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes): AclEntry => ({
    resourceType, resourceName, resourcePatternType: ResourcePatternTypes.LITERAL, principal: `User:${USER}`, host: '*', operation, permissionType: AclPermissionTypes.ALLOW,
  });
  const dlqWrite = acl(AclResourceTypes.TOPIC, d.dlqTopic, AclOperationTypes.WRITE);
  await createTopicsOf(d, 2);
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  await createAclsInEffect(admin, {
    acl: [
      acl(AclResourceTypes.TOPIC, d.mainTopic, AclOperationTypes.READ),
      acl(AclResourceTypes.TOPIC, d.tiers[0]!.topic, AclOperationTypes.READ),
      acl(AclResourceTypes.TOPIC, d.tiers[0]!.topic, AclOperationTypes.WRITE),
      dlqWrite,
      acl(AclResourceTypes.GROUP, d.groups.main, AclOperationTypes.READ),
      acl(AclResourceTypes.GROUP, d.groups.retry, AclOperationTypes.READ),
    ],
  });
  await admin.disconnect();
  return { d, dlqWrite };
}

const produce = (topic: string, values: string[]) => produceAsAdmin(topic, values.map((value) => ({ key: 'k', value, partition: 0 })));

async function committed(groupId: string, topic: string): Promise<number> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  await admin.disconnect();
  return Number(offsets!.partitions.find((p) => p.partition === 0)!.offset);
}

async function dlqCount(topic: string): Promise<number> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  return offsets.reduce((n, p) => n + Number(p.high), 0);
}

/**
 * A broker this test may restart: the suite's own or, when the suite runs on a broker it
 * was given (KAFKA_BOOTSTRAP_SERVERS), one started for this test alone; a shared broker
 * is never restarted under others.
 */
async function restartableBroker(): Promise<{ dir: string; release: () => Promise<void> }> {
  const suiteBroker = process.env.KRT_TEST_BROKER_DIR;
  if (suiteBroker) return { dir: suiteBroker, release: async () => {} };
  const given = process.env.KAFKA_BOOTSTRAP_SERVERS;
  const dir = path.join(process.env.KRT_TEST_WORK_DIR ?? os.tmpdir(), `outage-kafka-${process.pid}`);
  process.env.KAFKA_BOOTSTRAP_SERVERS = (await startBroker({ dir, users: [USER] })).bootstrapServers;
  return {
    dir,
    release: async () => {
      if (given === undefined) delete process.env.KAFKA_BOOTSTRAP_SERVERS;
      else process.env.KAFKA_BOOTSTRAP_SERVERS = given;
      await stopBroker(dir);
    },
  };
}

eachClient('the runtime through outages, on a real broker', { user: USER }, (port, client) => {
  let consumer: RetryingConsumer | undefined;
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
  });

  it('keeps a record uncommitted while its DLQ write ACL is gone, and delivers it once the ACL is back', async () => {
    const { d, dlqWrite } = await consumerWithAcls();
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    await admin.deleteAcls({ filters: [dlqWrite] });
    const refusals: string[] = [];
    consumer = createRetryingConsumer(d, {
      kafka: port(),
      publishBackoff: { initialMs: 100, maxMs: 500 },
      handler: async (record) => {
        if (record.message.value!.toString() === 'poison') throw new SyntaxError('unreadable');
      },
      onEvent: (e) => void (e.type === 'publish-failed' && refusals.push(String(e.error))),
    });
    await consumer.start();
    await produce(d.mainTopic, ['ok-1', 'poison', 'ok-2']);

    await eventually('the DLQ publish to be refused a few times', () => (refusals.length >= 3 ? true : undefined));
    expect(refusals[0]).toMatch(/authoriz/i);
    expect(await committed(d.groups.main, d.mainTopic)).toBeLessThanOrEqual(1);
    expect(await dlqCount(d.dlqTopic)).toBe(0);

    await createAclsInEffect(admin, { acl: [dlqWrite] });
    await admin.disconnect();
    await eventually('the poison record in the DLQ', async () => ((await dlqCount(d.dlqTopic)) === 1 ? true : undefined));
    await eventually('every record committed', async () => ((await committed(d.groups.main, d.mainTopic)) === 3 ? true : undefined));
  });

  it('loses nothing when the broker restarts mid-run', async () => {
    const broker = await restartableBroker();
    try {
      await losesNothingThroughARestartOf(broker.dir);
    } finally {
      try {
        await consumer?.stop();
      } finally {
        consumer = undefined;
        await broker.release();
      }
    }
  });

  it('after the broker was down 20 s with records waiting in a tier, handles them all and runs again at most one commit window', async () => {
    const broker = await restartableBroker();
    try {
      // The bench's scenario (bench/outage.ts), as the admin: its topics are fresh, without ACLs.
      const adminPort = () => client.port(ADMIN_USER);
      const result = await runOutage({ client: client.name, port: adminPort, brokerDir: broker.dir, log: (line) => process.stdout.write(`${line}\n`) });
      expect(result.waitingInTier).toBeGreaterThan(0);
      expect(result.lost).toBe(0);
      expect(result.recoveryMs).toBeDefined();
      // The duplicate bound (docs/runtime.md): the records done and not committed, at most
      // maxRecords per consumer (the main and the tier consumer each have their commit window)
      // per incident: the outage, and each rebalance of the main group while it ran before it.
      expect(result.duplicatesOf.main).toBeLessThanOrEqual(DEFAULT_COMMIT_POLICY.maxRecords * (1 + result.rebalancesBeforeKill));
      expect(result.duplicatesOf.tier).toBeLessThanOrEqual(DEFAULT_COMMIT_POLICY.maxRecords);
    } finally {
      await broker.release();
    }
  });

  async function losesNothingThroughARestartOf(dir: string): Promise<void> {
    const { d } = await consumerWithAcls();
    const done = new Set<string>();
    const events: string[] = [];
    consumer = createRetryingConsumer(d, {
      kafka: port(),
      publishBackoff: { initialMs: 100, maxMs: 1_000 },
      onEvent: (e) => void (e.type !== 'processed' && events.push(`${e.type}${'record' in e ? ` ${e.record.message.value}` : ''}${'error' in e ? ` (${String(e.error)})` : ''}`)),
      handler: async (record) => {
        const value = record.message.value!.toString();
        if (value.endsWith('-flaky') && record.topic === d.mainTopic) throw Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });
        done.add(value);
      },
    });
    await consumer.start();
    const first = Array.from({ length: 50 }, (_, i) => `before-${i}${i % 10 === 0 ? '-flaky' : ''}`);
    await produce(d.mainTopic, first);
    await eventually('some records processed', () => (done.size >= 10 ? true : undefined));
    await restartBroker(dir);
    const second = Array.from({ length: 50 }, (_, i) => `after-${i}${i % 10 === 0 ? '-flaky' : ''}`);
    await produce(d.mainTopic, second);
    const missing = () => [...first, ...second].filter((v) => !done.has(v));
    await eventually('every record processed after the restart', () => (missing().length === 0 ? true : undefined), 3 * 60_000).catch((error: unknown) => {
      throw new Error(`${String(error)}; never processed: ${missing().join(', ')}; the consumer's last events: ${events.slice(-20).join(' | ')}`);
    });
  }
});

/**
 * Park-by-key through a broker killed mid-run (SIGKILL: the group coordinator, the leaders and
 * the commits in flight all gone at once) and started again: the state commits refused
 * meanwhile (waited out, or failed and read again from the last stored state), the tier
 * records waiting, the records parked behind keys in retry. Each key's records must all run, in
 * their order, whatever ran twice.
 */
eachClient('park-by-key through a broker killed and started again, on a real broker', { clients: CLIENTS.filter((c) => c.orderings.includes('park-by-key')) }, (_port, client) => {
  it('runs every record, each key in its order, with keys in retry and records parked when the broker dies', async () => {
    const broker = await restartableBroker();
    let consumer: RetryingConsumer | undefined;
    try {
      const base = testDescriptor('pbk-outage', [3]);
      const d: ConsumerDescriptor = { ...base, ordering: 'park-by-key', groups: { ...base.groups, retry: base.groups.main } };
      await createTopicsOf(d, 3);
      const keys = Array.from({ length: 9 }, (_, i) => `k${i}`);
      const values = Array.from({ length: 20 }, (_, i) => String(i + 1));
      // The first and the eleventh record of each key fail once: the key is held, its next records park behind it.
      const failOnce = new Set(keys.flatMap((k) => [`${k}:1`, `${k}:11`]));
      const handled: string[] = [];
      consumer = createRetryingConsumer(d, {
        kafka: client.port(ADMIN_USER, { sessionTimeout: 10_000 }),
        publishBackoff: { initialMs: 100, maxMs: 1_000 },
        handler: async (record) => {
          const label = `${record.message.key?.toString()}:${record.message.value?.toString()}`;
          if (failOnce.delete(label)) {
            handled.push(`${label} FAIL`);
            throw Object.assign(new Error('payment-svc 503'), { name: 'HTTPError', status: 503 });
          }
          handled.push(label);
        },
      });
      await consumer.start();
      const produceValues = (from: number, to: number) => produceAsAdmin(d.mainTopic, values.slice(from, to).flatMap((value) => keys.map((key, i) => ({ key, value, partition: i % 3 }))));
      await produceValues(0, 12);
      // Killed while keys wait in the tier with records parked behind them (the eleventh failed, the twelfth parked).
      await eventually('every key in retry a second time', () => (keys.every((k) => handled.includes(`${k}:11 FAIL`)) ? true : undefined), 90_000);
      process.kill(readBrokerInfo(broker.dir)!.pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      await restartBroker(broker.dir);
      await produceValues(12, 20);
      await eventually('every key\'s last record', () => (keys.every((k) => handled.includes(`${k}:20`)) ? true : undefined), 3 * 60_000);
      for (const key of keys) {
        const mine = handled.filter((h) => h.startsWith(`${key}:`));
        // Each record's first successful run, in order; a run again (at least once) may come later.
        const firstRuns = mine.filter((h, i) => !h.endsWith('FAIL') && mine.indexOf(h) === i);
        expect({ key, firstRuns }).toEqual({ key, firstRuns: values.map((v) => `${key}:${v}`) });
      }
    } finally {
      try {
        await consumer?.stop();
      } finally {
        await broker.release();
      }
    }
  });
});
