/**
 * A single-node Apache Kafka (KRaft) for the tests and for people: SASL (PLAIN,
 * SCRAM-SHA-256 and SCRAM-SHA-512, same users and passwords) on loopback, ACLs enforced
 * by StandardAuthorizer, no topic auto-creation.
 *
 *   npx jiti scripts/kafka/broker.ts start [dir]   (npm run kafka:start)
 *   npx jiti scripts/kafka/broker.ts stop [dir]    (npm run kafka:stop)
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { processAlive } from './process-alive';
import { untilServing } from './serving';

export const DEFAULT_BROKER_DIR = path.join(process.env.TMPDIR ?? '/tmp', 'krt-kafka');
export const ADMIN_USER = 'admin';

export interface BrokerInfo {
  readonly bootstrapServers: string;
  readonly pid: number;
  readonly dir: string;
  /** SASL users and passwords (PLAIN and SCRAM), the admin included. */
  readonly users: Readonly<Record<string, string>>;
}

const infoFile = (dir: string) => path.join(dir, 'broker.json');

export function passwordOf(user: string): string {
  return `${user}-secret`;
}

/** A port nobody listens on now, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function serverProperties(dir: string, brokerPort: number, controllerPort: number, users: Record<string, string>): string {
  const jaasUsers = Object.entries(users).map(([u, p]) => `user_${u}="${p}"`).join(' ');
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=SASL_PLAINTEXT://127.0.0.1:${brokerPort},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=SASL_PLAINTEXT://127.0.0.1:${brokerPort}`,
    'listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name=SASL_PLAINTEXT',
    'controller.listener.names=CONTROLLER',
    `sasl.enabled.mechanisms=PLAIN,${SCRAM_MECHANISMS.join(',')}`,
    'sasl.mechanism.inter.broker.protocol=PLAIN',
    `listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="${ADMIN_USER}" password="${users[ADMIN_USER]}" ${jaasUsers};`,
    ...SCRAM_MECHANISMS.map((m) => `listener.name.sasl_plaintext.${m.toLowerCase()}.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;`),
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    // The controller listener is loopback-only; its requests arrive as ANONYMOUS.
    `super.users=User:${ADMIN_USER};User:ANONYMOUS`,
    'allow.everyone.if.no.acl.found=false',
    'auto.create.topics.enable=false',
    'num.partitions=1',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=5',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    `log.dirs=${path.join(dir, 'data')}`,
    '',
  ].join('\n');
}

/** SCRAM users live in the cluster metadata; the storage tool adds them at format time. */
const SCRAM_MECHANISMS = ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;

function clusterId(): string {
  return randomBytes(16).toString('base64url').slice(0, 22);
}

/**
 * Formats the broker's storage. The cluster id is base64url, so it may begin with `-`:
 * passed as `--cluster-id=<id>` it can never be read as an option.
 */
export function formatStorage(options: { readonly libs: string; readonly config: string; readonly clusterId: string; readonly users?: Readonly<Record<string, string>> }): void {
  const scram = Object.entries(options.users ?? {}).flatMap(([user, password]) => SCRAM_MECHANISMS.map((m) => `--add-scram=${m}=[name=${user},password=${password}]`));
  execFileSync('java', ['-cp', `${options.libs}/*`, 'kafka.tools.StorageTool', 'format', `--cluster-id=${options.clusterId}`, `--config=${options.config}`, ...scram], { stdio: 'pipe' });
}

/** The folder of the Apache Kafka jars, fetched once by scripts/kafka/fetch.sh. */
export function kafkaLibs(): string {
  return execFileSync('bash', [path.join(__dirname, 'fetch.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

function logTail(dir: string): string {
  const file = path.join(dir, 'broker.log');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-30).join('\n') : '(no broker log)';
}

async function waitUntilReady(info: BrokerInfo, timeoutMs: number): Promise<void> {
  const kafka = new Kafka({
    brokers: [info.bootstrapServers],
    sasl: { mechanism: 'plain', username: ADMIN_USER, password: info.users[ADMIN_USER]! },
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const admin = kafka.admin();
    try {
      await admin.connect();
      await admin.describeCluster();
      await untilServing(admin);
      await admin.disconnect();
      return;
    } catch (error) {
      await admin.disconnect().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`the Kafka broker did not answer within ${timeoutMs / 1000}s (${String(error)}); its log ends with:\n${logTail(info.dir)}`);
      try {
        process.kill(info.pid, 0);
      } catch {
        throw new Error(`the Kafka broker exited during start-up; its log ends with:\n${logTail(info.dir)}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Starts a fresh broker in `dir` (its old data is removed) with these users besides the admin. */
export async function startBroker(options: { dir?: string; users?: readonly string[] } = {}): Promise<BrokerInfo> {
  const dir = options.dir ?? DEFAULT_BROKER_DIR;
  const running = readBrokerInfo(dir);
  if (running && processAlive(running.pid)) throw new Error(`a broker already runs from ${dir} (pid ${running.pid}); stop it first`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const libs = kafkaLibs();
  const users = Object.fromEntries([ADMIN_USER, ...(options.users ?? [])].map((u) => [u, passwordOf(u)]));
  const [brokerPort, controllerPort] = [await freePort(), await freePort()];
  const config = path.join(dir, 'server.properties');
  writeFileSync(config, serverProperties(dir, brokerPort, controllerPort, users));
  const classpath = `${libs}/*`;
  formatStorage({ libs, config, clusterId: clusterId(), users });
  const log = openSync(path.join(dir, 'broker.log'), 'a');
  const child = spawn('java', ['-Xms256m', '-Xmx1g', '-cp', classpath, 'kafka.Kafka', config], { detached: true, stdio: ['ignore', log, log] });
  child.unref();
  const info: BrokerInfo = { bootstrapServers: `127.0.0.1:${brokerPort}`, pid: child.pid!, dir, users };
  writeFileSync(infoFile(dir), JSON.stringify(info, null, 2));
  try {
    await waitUntilReady(info, 90_000);
  } catch (error) {
    await stopBroker(dir);
    throw error;
  }
  return info;
}

/**
 * Stops the broker and starts it again on the same ports and data, as after a crash or
 * a rolling restart; resolves when it answers again.
 */
export async function restartBroker(dir = DEFAULT_BROKER_DIR): Promise<BrokerInfo> {
  const info = readBrokerInfo(dir);
  if (!info) throw new Error(`no broker was started from ${dir}`);
  await stopBroker(dir);
  const libs = kafkaLibs();
  const log = openSync(path.join(dir, 'broker.log'), 'a');
  const child = spawn('java', ['-Xms256m', '-Xmx1g', '-cp', `${libs}/*`, 'kafka.Kafka', path.join(dir, 'server.properties')], { detached: true, stdio: ['ignore', log, log] });
  child.unref();
  const restarted: BrokerInfo = { ...info, pid: child.pid! };
  writeFileSync(infoFile(dir), JSON.stringify(restarted, null, 2));
  await waitUntilReady(restarted, 90_000);
  return restarted;
}

export function readBrokerInfo(dir = DEFAULT_BROKER_DIR): BrokerInfo | undefined {
  return existsSync(infoFile(dir)) ? (JSON.parse(readFileSync(infoFile(dir), 'utf8')) as BrokerInfo) : undefined;
}


/** Stops the broker cleanly (SIGTERM, then SIGKILL after 30 s). */
export async function stopBroker(dir = DEFAULT_BROKER_DIR): Promise<void> {
  const info = readBrokerInfo(dir);
  if (!info || !processAlive(info.pid)) return;
  process.kill(info.pid, 'SIGTERM');
  const deadline = Date.now() + 30_000;
  while (processAlive(info.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  if (processAlive(info.pid)) process.kill(info.pid, 'SIGKILL');
}

async function cli(): Promise<void> {
  const [command, dir] = process.argv.slice(2);
  if (command === 'start') {
    // The users the test set-up and the DLQ tour give their brokers (loaded here only: they compile the topologies).
    const { exampleModel, exampleUsers } = require('./example-stacks') as typeof import('./example-stacks');
    const users = process.env.KRT_KAFKA_USERS?.split(/\s+/).filter(Boolean) ?? exampleUsers(await exampleModel());
    const info = await startBroker({ dir, users });
    console.log(`Kafka runs at ${info.bootstrapServers} (pid ${info.pid}); users ${Object.keys(info.users).join(', ')}, password <user>-secret.`);
    console.log(`export KAFKA_BOOTSTRAP_SERVERS=${info.bootstrapServers}`);
  } else if (command === 'stop') {
    await stopBroker(dir);
    console.log('Kafka stopped.');
  } else {
    console.error('usage: broker.ts start|stop [dir]');
    process.exitCode = 2;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === __filename) {
  cli().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
