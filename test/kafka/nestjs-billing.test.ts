import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } from 'kafkajs';
import type { AclEntry, IHeaders } from 'kafkajs';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, createAclsInEffect, createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';

jest.setTimeout(5 * 60_000);

const USER = 'billing';
const CONSUMER = 'billing-order-confirmed';

/** The payment service the example calls: counts charges per order; `down-*` answers 503, `dup-*` 409, `slow-*` waits for `release`. */
class PaymentService {
  readonly charges = new Map<string, number>();
  private readonly held: (() => void)[] = [];
  private readonly server = http.createServer((req, res) => {
    const orderId = decodeURIComponent(req.url!.split('/').pop()!);
    this.charges.set(orderId, (this.charges.get(orderId) ?? 0) + 1);
    const answer = (status: number) => res.writeHead(status).end();
    if (orderId.startsWith('down-')) answer(503);
    else if (orderId.startsWith('dup-')) answer(409);
    else if (orderId.startsWith('slow-')) this.held.push(() => answer(200));
    else answer(200);
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  release(): void {
    for (const answer of this.held.splice(0)) answer();
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The example app as a real process; fails at once with its output if it exits before it serves. */
class BillingApp {
  output = '';
  /** How it ended: Nest closes the app on SIGTERM, then raises the signal again, as its shutdown hooks do. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;

  constructor(env: Record<string, string>, readonly port: number) {
    this.child = spawn(path.join(REPO_ROOT, 'node_modules', '.bin', 'jiti'), [path.join(__dirname, 'nestjs-billing-app.ts')], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env, PORT: String(port), NO_COLOR: '1' },
    });
    const collect = (chunk: Buffer) => void (this.output += chunk.toString());
    this.child.stdout!.on('data', collect);
    this.child.stderr!.on('data', collect);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  async health(): Promise<{ status: number; body: HealthBody }> {
    const response = await fetch(`http://127.0.0.1:${this.port}/health`);
    return { status: response.status, body: (await response.json()) as HealthBody };
  }

  /** Resolves once /health answers; rejects with the app's output if it exits first. */
  async ready(): Promise<void> {
    let exit: string | undefined;
    void this.exited.then(({ code, signal }) => (exit = signal ?? String(code)));
    await eventually('the billing app to serve /health', async () => {
      if (exit !== undefined) throw new Error(`the billing app exited (${exit}):\n${this.output}`);
      return this.health().then(() => true, () => undefined);
    }, 90_000);
  }

  terminate(): void {
    this.child.kill('SIGTERM');
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

interface HealthBody {
  status: string;
  details: Record<string, { status: string; consumers: Record<string, { connected: boolean; publishFailing?: { topic: string; error: string }; dlq?: { size?: number } }> }>;
}

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const acl = (resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes): AclEntry => ({
  resourceType, resourceName, resourcePatternType: ResourcePatternTypes.LITERAL, principal: `User:${USER}`, host: '*', operation, permissionType: AclPermissionTypes.ALLOW,
});

/** The consumer's least-privilege ACLs for the principal `billing`, as the generated Terraform grants them. */
async function grantConsumerAcls(d: ConsumerDescriptor): Promise<void> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  await createAclsInEffect(admin, {
    acl: [
      acl(AclResourceTypes.TOPIC, d.mainTopic, AclOperationTypes.READ),
      ...d.tiers.flatMap((t) => [acl(AclResourceTypes.TOPIC, t.topic, AclOperationTypes.READ), acl(AclResourceTypes.TOPIC, t.topic, AclOperationTypes.WRITE)]),
      acl(AclResourceTypes.TOPIC, d.dlqTopic, AclOperationTypes.WRITE),
      acl(AclResourceTypes.GROUP, d.groups.main, AclOperationTypes.READ),
      acl(AclResourceTypes.GROUP, d.groups.retry, AclOperationTypes.READ),
    ],
  });
  await admin.disconnect();
}

async function withAdmin<T>(work: (admin: ReturnType<ReturnType<typeof kafkaAsAdmin>['admin']>) => Promise<T>): Promise<T> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.disconnect();
  }
}

const endOffset = (topic: string) => withAdmin(async (admin) => (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0));
const committedOffset = (groupId: string, topic: string) =>
  withAdmin(async (admin) => (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0));

interface DeadLetter {
  readonly key: string;
  readonly headers: Record<string, string>;
}

/** Every record in the DLQ, read by a group of its own once it holds `count`. */
async function deadLetters(d: ConsumerDescriptor, count: number): Promise<DeadLetter[]> {
  await eventually(`${count} records in ${d.dlqTopic}`, async () => ((await endOffset(d.dlqTopic)) >= count ? true : undefined), 60_000);
  const consumer = kafkaAsAdmin().consumer({ groupId: `${d.dlqTopic}.reader-${randomBytes(3).toString('hex')}` });
  const records: DeadLetter[] = [];
  const text = (headers: IHeaders = {}) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
  await consumer.connect();
  await consumer.subscribe({ topics: [d.dlqTopic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void records.push({ key: message.key!.toString(), headers: text(message.headers) }) });
  await eventually(`the reader to read ${count} DLQ records`, () => (records.length >= count ? true : undefined));
  await consumer.disconnect();
  return records;
}

const order = (orderId: string, amountCents = 1250) => ({ key: orderId, value: JSON.stringify({ orderId, amountCents, currency: 'EUR' }), partition: 0 });

describe('the example Nest app (examples/nestjs-billing), on a real broker', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'krt-nestjs-'));
  const payments = new PaymentService();
  const d: ConsumerDescriptor = { ...testDescriptor('nestjs', [1, 2]), name: CONSUMER };
  let env: Record<string, string>;
  let app: BillingApp;

  const start = async () => {
    app = new BillingApp(env, await freePort());
    await app.ready();
  };

  beforeAll(async () => {
    // The router package the example imports, on this test's topics and 1 s and 2 s tiers.
    const routerPackage = path.join(work, 'orders-retry-router.js');
    writeFileSync(routerPackage, `'use strict';\nconst billingOrderConfirmed = ${JSON.stringify(d)};\nexports.billingOrderConfirmed = billingOrderConfirmed;\nexports.consumers = { '${CONSUMER}': billingOrderConfirmed };\n`);
    await createTopicsOf(d, 1);
    await grantConsumerAcls(d);
    env = {
      KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(),
      KAFKA_SASL_USERNAME: USER,
      KAFKA_SASL_PASSWORD: passwordOf(USER),
      PAYMENT_URL: await payments.start(),
      NESTJS_ROUTER_PACKAGE: routerPackage,
      // The DLQ monitor runs as the admin here; in production as the topology's monitor principal.
      KAFKA_MONITOR_USERNAME: ADMIN_USER,
      KAFKA_MONITOR_PASSWORD: passwordOf(ADMIN_USER),
      DLQ_MONITOR_INTERVAL_MS: '500',
    };
    await start();
  });

  afterAll(async () => {
    app?.kill();
    await payments.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('charges a valid order through the injected PaymentsService', async () => {
    await produceAsAdmin(d.mainTopic, [order('ok-1')]);
    await eventually('ok-1 charged', () => (payments.charges.get('ok-1') === 1 ? true : undefined));
  });

  it('sends an order that fails validation (BadRequestException) to the DLQ at once, with attempt 1, and never charges it', async () => {
    await produceAsAdmin(d.mainTopic, [order('bad-1', -5)]);
    const [letter] = await deadLetters(d, 1);
    expect(letter).toEqual({ key: 'bad-1', headers: expect.objectContaining({ 'x-attempt': '1', 'x-error-class': 'BadRequestException', 'x-original-topic': d.mainTopic }) });
    expect(payments.charges.has('bad-1')).toBe(false);
  });

  it('retries an order the payment service answers 503 (ServiceUnavailableException) through both tiers, then sends it to the DLQ with attempt 3', async () => {
    await produceAsAdmin(d.mainTopic, [order('down-1')]);
    const letters = await deadLetters(d, 2);
    expect(letters.find((l) => l.key === 'down-1')!.headers).toEqual(expect.objectContaining({ 'x-attempt': '3', 'x-error-class': 'ServiceUnavailableException' }));
    expect(payments.charges.get('down-1')).toBe(3);
    expect(await Promise.all(d.tiers.map((t) => endOffset(t.topic)))).toEqual([1, 1]);
  });

  it("counts both dead letters on the app's /metrics and reports them in /health from the DLQ monitor", async () => {
    const metrics = await (await fetch(`http://127.0.0.1:${app.port}/metrics`)).text();
    expect(metrics).toContain(`kafka_dlq_routed_total{consumer="${CONSUMER}",error_class="permanent-data"} 1`);
    expect(metrics).toContain(`kafka_dlq_routed_total{consumer="${CONSUMER}",error_class="transient-long"} 1`);
    await eventually('the DLQ monitor to count 2 records', async () => ((await app.health()).body.details['kafka-retry']!.consumers[CONSUMER]!.dlq?.size === 2 ? true : undefined));
  });

  it('lets an exception filter that handles the error settle the record: the already-charged order is committed, not dead-lettered', async () => {
    await produceAsAdmin(d.mainTopic, [order('dup-1'), order('ok-2')]);
    await eventually('ok-2 charged after dup-1', () => (payments.charges.get('ok-2') === 1 ? true : undefined));
    expect(payments.charges.get('dup-1')).toBe(1);
    await eventually('every main record committed', async () => ((await committedOffset(d.groups.main, d.mainTopic)) === 5 ? true : undefined));
    expect(await endOffset(d.dlqTopic)).toBe(2);
  });

  it('on SIGTERM finishes the order in hand, commits it and exits; the restarted app does not charge it again', async () => {
    await produceAsAdmin(d.mainTopic, [order('slow-1')]);
    await eventually('slow-1 in hand', () => (payments.charges.get('slow-1') === 1 ? true : undefined));
    app.terminate();
    await eventually('the app to begin its shutdown', () => (app.output.includes(`consumer ${CONSUMER} stopping`) ? true : undefined));
    payments.release();
    expect(await app.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(app.output).toContain(`consumer ${CONSUMER} stopped`);
    expect(await committedOffset(d.groups.main, d.mainTopic)).toBe(6);

    await start();
    await produceAsAdmin(d.mainTopic, [order('ok-3')]);
    await eventually('ok-3 charged by the restarted app', () => (payments.charges.get('ok-3') === 1 ? true : undefined));
    expect(Object.fromEntries(payments.charges)).toEqual({ 'ok-1': 1, 'down-1': 3, 'dup-1': 1, 'ok-2': 1, 'slow-1': 1, 'ok-3': 1 });
  });

  it('reports a failing DLQ publish on /health while the DLQ write ACL is gone, and recovers once it is back', async () => {
    expect(await app.health()).toEqual({ status: 200, body: expect.objectContaining({ status: 'ok' }) });
    const dlqWrite = acl(AclResourceTypes.TOPIC, d.dlqTopic, AclOperationTypes.WRITE);
    await withAdmin((admin) => admin.deleteAcls({ filters: [dlqWrite] }));
    await produceAsAdmin(d.mainTopic, [order('bad-2', 0)]);

    const down = await eventually('/health to report the refused publish', async () => {
      const health = await app.health();
      return health.status === 503 ? health : undefined;
    }, 60_000);
    const consumer = down.body.details['kafka-retry']!.consumers[CONSUMER]!;
    expect(down.body.status).toBe('error');
    expect(consumer).toEqual(expect.objectContaining({ connected: true, publishFailing: expect.objectContaining({ topic: d.mainTopic, error: expect.stringMatching(/authoriz/i) }) }));

    await withAdmin((admin) => createAclsInEffect(admin, { acl: [dlqWrite] }));
    await eventually('/health to be up again', async () => ((await app.health()).status === 200 ? true : undefined), 60_000);
    expect((await deadLetters(d, 3)).map((l) => l.key)).toContain('bad-2');
  });
});
