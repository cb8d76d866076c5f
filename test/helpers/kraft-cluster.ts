/**
 * A three-node KRaft cluster (first for attack 48's coordinator moves): one controller and two brokers,
 * SASL PLAIN (the admin user only, no authorizer), __consumer_offsets with one partition on both
 * brokers, so that killing the broker that leads it moves every group's coordinator to the other.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { ADMIN_USER, formatStorage, freePort, kafkaLibs, passwordOf } from '../../scripts/kafka/broker';
import { processAlive } from '../../scripts/kafka/process-alive';
import { sleep } from './suite-broker';

export interface ClusterNode {
  readonly id: number;
  readonly config: string;
  readonly port: number;
  pid?: number;
}

export interface Cluster {
  readonly bootstrapServers: string;
  readonly brokers: ClusterNode[];
  start(node: ClusterNode): void;
  kill(node: ClusterNode): void;
  /** The broker that leads __consumer_offsets-0: every group's coordinator. */
  coordinator(): Promise<ClusterNode>;
  /** Waits until every partition of every topic has a leader and all its replicas in its ISR. */
  inSync(timeoutMs?: number): Promise<void>;
  /**
   * Waits until every broker's metadata has `topics` with a leader for each partition. A topic
   * just created is known to the broker that answered the creation first: a Confluent consumer
   * whose first metadata came from the other joined without it and, librdkafka looking again
   * only at its metadata refresh (5 minutes), read nothing (attack 48, 1 run in about 30).
   */
  knownEverywhere(topics: readonly string[], timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startCluster(dir: string): Promise<Cluster> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const libs = kafkaLibs();
  const clusterId = randomBytes(16).toString('base64url').slice(0, 22).replace(/^-/, 'A');
  const controllerPort = await freePort();
  const password = passwordOf(ADMIN_USER);
  const common = [
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    'controller.listener.names=CONTROLLER',
    'listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name=SASL_PLAINTEXT',
    'sasl.enabled.mechanisms=PLAIN',
    'sasl.mechanism.inter.broker.protocol=PLAIN',
    `listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="${ADMIN_USER}" password="${password}" user_${ADMIN_USER}="${password}";`,
    'auto.create.topics.enable=false',
    'offsets.topic.replication.factor=2',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=2',
    'transaction.state.log.min.isr=1',
    'share.coordinator.state.topic.replication.factor=2',
    'share.coordinator.state.topic.min.isr=1',
    'min.insync.replicas=1',
    'default.replication.factor=2',
    'group.initial.rebalance.delay.ms=0',
    'replica.lag.time.max.ms=5000',
    'auto.leader.rebalance.enable=false',
  ];
  const nodes: ClusterNode[] = [];
  const write = (id: number, lines: string[], port: number) => {
    const nodeDir = path.join(dir, `node-${id}`);
    mkdirSync(nodeDir, { recursive: true });
    const config = path.join(nodeDir, 'server.properties');
    writeFileSync(config, [`node.id=${id}`, `log.dirs=${path.join(nodeDir, 'data')}`, ...common, ...lines, ''].join('\n'));
    formatStorage({ libs, config, clusterId });
    const node: ClusterNode = { id, config, port };
    nodes.push(node);
    return node;
  };
  const controller = write(1, ['process.roles=controller', `listeners=CONTROLLER://127.0.0.1:${controllerPort}`], controllerPort);
  const brokers: ClusterNode[] = [];
  for (const id of [2, 3]) {
    const port = await freePort();
    brokers.push(write(id, ['process.roles=broker', `listeners=SASL_PLAINTEXT://127.0.0.1:${port}`, `advertised.listeners=SASL_PLAINTEXT://127.0.0.1:${port}`], port));
  }
  const start = (node: ClusterNode) => {
    const log = openSync(path.join(path.dirname(node.config), 'node.log'), 'a');
    const child = spawn('java', ['-Xms128m', '-Xmx512m', '-cp', `${libs}/*`, 'kafka.Kafka', node.config], { detached: true, stdio: ['ignore', log, log] });
    child.unref();
    node.pid = child.pid;
    writeFileSync(path.join(dir, 'pids'), nodes.map((n) => n.pid ?? '').join('\n'));
  };
  const kill = (node: ClusterNode) => {
    if (node.pid !== undefined && processAlive(node.pid)) process.kill(node.pid, 'SIGKILL');
  };
  const bootstrapServers = brokers.map((b) => `127.0.0.1:${b.port}`).join(',');
  const kafka = new Kafka({ brokers: bootstrapServers.split(','), sasl: { mechanism: 'plain', username: ADMIN_USER, password }, logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const offsetsPartition = async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const meta = await admin.fetchTopicMetadata({ topics: ['__consumer_offsets'] });
      return meta.topics[0]!.partitions.find((p) => p.partitionId === 0)!;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  };
  const everyPartition = async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const meta = await admin.fetchTopicMetadata();
      return meta.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, ...p })));
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  };
  const cluster: Cluster = {
    bootstrapServers,
    brokers,
    start,
    kill,
    async coordinator() {
      for (let tries = 0; ; tries++) {
        const p = await offsetsPartition().catch((error: unknown) => (tries < 30 ? undefined : Promise.reject(error)));
        const leader = brokers.find((b) => b.id === p?.leader);
        if (leader) return leader;
        await sleep(1_000);
      }
    },
    async inSync(timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        // Every partition of every topic, not only the coordinator's: one the restarted broker has
        // not caught up on has the other broker alone in its ISR, and killing that one next left it
        // without a leader for good (no unclean election): producers and the coordinator lookup
        // failed on "in the middle of a leadership election" (attack 48, 1 run in about 30).
        const lagging = await everyPartition()
          .then((all) => all.filter((p) => p.leader < 0 || p.isr.length < p.replicas.length).map((p) => `${p.topic}-${p.partitionId} isr ${JSON.stringify(p.isr)}`))
          .catch((error: unknown) => [String(error)]);
        if (lagging.length === 0) return;
        if (Date.now() > deadline) throw new Error(`not in sync after ${timeoutMs / 1000}s: ${lagging.slice(0, 10).join(', ')}`);
        await sleep(1_000);
      }
    },
    async knownEverywhere(topics, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (const broker of brokers) {
        // A client of this broker alone asks it, not whichever broker answered first.
        const one = new Kafka({ brokers: [`127.0.0.1:${broker.port}`], sasl: { mechanism: 'plain', username: ADMIN_USER, password }, logLevel: logLevel.NOTHING, retry: { retries: 0 } });
        for (;;) {
          const admin = one.admin();
          const led = await admin
            .connect()
            .then(() => admin.fetchTopicMetadata({ topics: [...topics] }))
            .then((meta) => meta.topics.length === topics.length && meta.topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)))
            .catch(() => false)
            .finally(() => admin.disconnect().catch(() => undefined));
          if (led) break;
          if (Date.now() > deadline) throw new Error(`broker ${broker.id} does not know ${topics.join(', ')} with their leaders after ${timeoutMs / 1000}s`);
          await sleep(250);
        }
      }
    },
    async stop() {
      for (const node of nodes) kill(node);
    },
  };
  try {
    for (const node of nodes) start(node);
    // The offsets topic is created at the first group request: a consumer group lookup makes it.
    const deadline = Date.now() + 120_000;
    for (;;) {
      const admin = kafka.admin();
      try {
        await admin.connect();
        await admin.describeGroups(['a48-warm-up']);
        await admin.disconnect();
        break;
      } catch (error) {
        await admin.disconnect().catch(() => undefined);
        if (Date.now() > deadline) throw new Error(`the cluster did not come up: ${String(error)}`);
        await sleep(1_000);
      }
    }
    await cluster.inSync();
    void controller;
    return cluster;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}
