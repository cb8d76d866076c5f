/**
 * Puts dead letters in billing-order-confirmed's DLQ the way production does: the example
 * billing service (examples/billing-service, the real runtime through the generated router
 * package) consumes orders from orders.confirmed, and the records it cannot process for good
 * are published to orders.confirmed.dlq by the runtime. Nothing here writes to the DLQ.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { ADMIN_USER, passwordOf } from '../kafka/broker';
import { DlqSession } from '../../src/dlq/session';
import type { DlqRecord } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { principalName } from '../../src/naming';
import { PaymentService } from './payment-service';

/** One order the tour writes, and what the billing service does with it. */
interface TourOrder {
  readonly n: number;
  readonly value: (orderId: string) => string;
  /** Why it ends in the DLQ, as its x-error-class header says; none: it is charged. */
  readonly deadLetter?: string;
  /** The payment service declines it (422). */
  readonly declined?: true;
}

const order = (orderId: string, amountCents: number, currency: string) => JSON.stringify({ orderId, amountCents, currency });

/** Two orders charged, four dead letters of three error names (the console groups them by name). */
const TOUR_ORDERS: readonly TourOrder[] = [
  { n: 1, value: (id) => order(id, 4200, 'EUR') },
  { n: 2, value: (id) => order(id, 1999, 'USD') },
  { n: 3, value: (id) => order(id, -500, 'EUR'), deadLetter: 'ZodError' },
  { n: 4, value: (id) => `{"orderId": "${id}", "amountCents": 12`, deadLetter: 'SyntaxError' },
  { n: 5, value: (id) => order(id, 700, 'EURO'), deadLetter: 'ZodError' },
  { n: 6, value: (id) => order(id, 250_000, 'EUR'), deadLetter: 'HTTPError', declined: true },
];

const TOUR_DEAD_LETTERS = TOUR_ORDERS.filter((o) => o.deadLetter).length;

export interface DeadLettersResult {
  /** The prefix of this run's order ids (and record keys): `<run>-<n>`. */
  readonly run: string;
  /** This run's records in the DLQ, unhandled, in partition and offset order. */
  readonly deadLetters: readonly DlqRecord[];
}

const SERVICE_START_MS = 120_000;
const DEAD_LETTERS_MS = 180_000;
const billingService = path.join(__dirname, 'billing-service.ts');
const jitiBin = path.resolve(__dirname, '..', '..', 'node_modules', '.bin', 'jiti');

function adminKafka(bootstrapServers: string): Kafka {
  return new Kafka({
    clientId: 'krt-tour',
    brokers: bootstrapServers.split(','),
    sasl: { mechanism: 'plain', username: ADMIN_USER, password: passwordOf(ADMIN_USER) },
    logLevel: logLevel.NOTHING,
    retry: { retries: 5, initialRetryTime: 200 },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the example billing service on these orders until its dead letters are in the DLQ, then stops it. */
export async function deadLettersFromBillingService(options: { readonly bootstrapServers: string; readonly consumer: ConsumerModel; readonly log: (line: string) => void }): Promise<DeadLettersResult> {
  const { bootstrapServers, consumer, log } = options;
  const run = `tour-${randomBytes(2).toString('hex')}`;
  const orderId = (o: TourOrder) => `${run}-${o.n}`;
  const payments = new PaymentService(new Set(TOUR_ORDERS.filter((o) => o.declined).map(orderId)));
  const paymentUrl = await payments.start();
  const user = principalName(consumer.principal);
  log(`starting the example billing service (examples/billing-service) as ${user}, with a stand-in payment service at ${paymentUrl}`);
  const service = spawn(jitiBin, [billingService], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers, KAFKA_SASL_USERNAME: user, KAFKA_SASL_PASSWORD: passwordOf(user), PAYMENT_URL: paymentUrl, METRICS_PORT: '0' },
  });
  let output = '';
  const collect = (chunk: Buffer) => void (output += chunk.toString('utf8'));
  service.stdout.on('data', collect);
  service.stderr.on('data', collect);
  let exited: string | undefined;
  const exit = new Promise<void>((resolve) => service.once('exit', (code, signal) => ((exited = signal ?? `exit status ${code}`), resolve())));
  const running = () => {
    if (exited !== undefined) throw new Error(`the billing service stopped (${exited})`);
  };
  const kafka = adminKafka(bootstrapServers);
  try {
    await until(`the billing service to start`, SERVICE_START_MS, async () => (running(), output.includes(`billing consumes ${consumer.mainTopic.name}`)));
    const dlqBefore = await endOffsetSum(kafka, consumer.dlq.name);
    log(`writing ${TOUR_ORDERS.length} orders to ${consumer.mainTopic.name} (keys ${run}-1 to ${run}-${TOUR_ORDERS.length}); ${TOUR_DEAD_LETTERS} cannot be processed, ever`);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: consumer.mainTopic.name, acks: -1, messages: TOUR_ORDERS.map((o) => ({ key: orderId(o), value: o.value(orderId(o)) })) });
    await producer.disconnect();
    let deadLetters: readonly DlqRecord[] = [];
    const sentToPayment = TOUR_ORDERS.filter((o) => !o.deadLetter || o.declined).map(orderId);
    await until(`${TOUR_DEAD_LETTERS} dead letters in ${consumer.dlq.name}`, DEAD_LETTERS_MS, async () => {
      running();
      if (!sentToPayment.every((id) => payments.asked.has(id))) return false;
      if ((await endOffsetSum(kafka, consumer.dlq.name)) < dlqBefore + TOUR_DEAD_LETTERS) return false;
      const session = await DlqSession.open(kafka, consumer, 60_000, (record) => record.key?.toString('utf8').startsWith(`${run}-`) ?? false);
      deadLetters = session.records;
      await session.close();
      return deadLetters.length >= TOUR_DEAD_LETTERS;
    });
    return { run, deadLetters };
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; the billing service's output:\n${output.trim()}`);
  } finally {
    service.kill('SIGTERM');
    const stuck = setTimeout(() => service.kill('SIGKILL'), 30_000);
    await exit;
    clearTimeout(stuck);
    await payments.stop();
  }
}

async function endOffsetSum(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
  } finally {
    await admin.disconnect();
  }
}

/** Asks `done` every second until it says yes; past the deadline, says what it waited for. */
async function until(what: string, timeoutMs: number, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs / 1000}s for ${what}`);
    await sleep(1_000);
  }
}
