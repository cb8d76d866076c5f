/**
 * Attack 48's park-by-key consumers on the Confluent client: each on fresh topics (2 partitions,
 * one 2 s tier), its keys' first and sixth records failing once into the tier, so keys are held
 * and records parked behind them. `kafka` lets a test see (and hook) the reader consumers.
 */
import { pbkdf2 } from 'node:crypto';
import { AssignerProtocol } from 'kafkajs';
import { ADMIN_USER } from '../../scripts/kafka/broker';
import { confluentPort } from '../../src/runtime/adapters/confluent';
import type { ConfluentKafkaLike } from '../../src/runtime/adapters/confluent';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { confluentKafka, createTopicsOf, kafkaAsAdmin, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { sleep } from '../helpers/suite-broker';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';
import { tracedPort } from '../helpers/traced-port';

export const KEYS = ['a', 'b', 'c', 'd'];

export interface Member {
  readonly d: ConsumerDescriptor;
  readonly consumer: RetryingConsumer;
  readonly handled: string[];
  readonly events: string[];
  /** Every run: time, main or tier, partition, offset, key:value. */
  readonly runs: string[];
  /** What the runtime asked of its consumers and what they answered (traced-port.ts). */
  readonly trace: string[];
  produce(from: number, to: number): Promise<void>;
}

/** Hooks on the readers (the consumers the Confluent port makes without a rebalance callback). */
export interface ReaderHooks {
  /** Called before each native committed() of a reader; may delay it. */
  beforeRead?: (reader: number) => void | Promise<void>;
}

/** The Confluent client, its readers' native committed() calls passed through `hooks`. */
export function hookedKafka(hooks: ReaderHooks = {}): ConfluentKafkaLike {
  const kafka = confluentKafka(ADMIN_USER);
  let readers = 0;
  return {
    consumer: (config) => {
      const c = kafka.consumer(config);
      if ('rebalance_cb' in config) return c;
      const reader = readers++;
      return new Proxy(c, {
        get(target, prop) {
          const v = Reflect.get(target, prop) as unknown;
          if (prop !== '_getInternalClient') return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          return () => {
            const native = (v as () => Record<string, unknown> | undefined).call(target);
            if (native === undefined) return native;
            return new Proxy(native, {
              get(nt, np) {
                const nv = Reflect.get(nt, np) as unknown;
                if (np !== 'committed') return typeof nv === 'function' ? (nv as (...a: unknown[]) => unknown).bind(nt) : nv;
                return (...a: unknown[]) => {
                  const hooked = hooks.beforeRead?.(reader);
                  if (hooked instanceof Promise) void hooked.then(() => (nv as (...a: unknown[]) => unknown).apply(nt, a));
                  else (nv as (...a: unknown[]) => unknown).apply(nt, a);
                };
              },
            });
          };
        },
      });
    },
    producer: (config) => kafka.producer(config),
  };
}

/** A park-by-key consumer on fresh topics, not started. */
export async function member(prefix: string, kafka: ConfluentKafkaLike = confluentKafka(ADMIN_USER), options: { replicationFactor?: number } = {}): Promise<Member> {
  const base = testDescriptor(prefix, [2]);
  const d: ConsumerDescriptor = { ...base, ordering: 'park-by-key', groups: { ...base.groups, retry: base.groups.main } };
  if (options.replicationFactor === undefined) await createTopicsOf(d, 2);
  else {
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      const topics = [d.mainTopic, ...d.tiers.map((t) => t.topic), d.dlqTopic];
      await createTopicsWithLeaders(admin, topics.map((topic) => ({ topic, numPartitions: 2, replicationFactor: options.replicationFactor! })));
    } finally {
      await admin.disconnect();
    }
  }
  const handled: string[] = [];
  const events: string[] = [];
  /** Every run with its time, topic, partition and offset: what a failure prints to say where a record went. */
  const runs: string[] = [];
  const failOnce = new Set(KEYS.flatMap((k) => [`${k}:1`, `${k}:6`]));
  const t0 = Date.now();
  const trace: string[] = [];
  const consumer = createRetryingConsumer(d, {
    kafka: tracedPort(confluentPort(kafka, { consumerConfig: { sessionTimeout: 10_000 } }), trace, t0),
    publishBackoff: { initialMs: 100, maxMs: 1_000 },
    drainTimeoutMs: 5_000,
    onEvent: (e) => void (e.type !== 'processed' && events.push(`${Date.now() - t0} ${e.type}${'error' in e ? ` (${String(e.error).slice(0, 120)})` : ''}`)),
    handler: async (record) => {
      const label = `${record.message.key?.toString()}:${record.message.value?.toString()}`;
      runs.push(`${Date.now() - t0} ${record.topic.endsWith('.main') ? 'main' : 'tier'}-${record.partition}@${record.message.offset} ${label}`);
      if (failOnce.delete(label)) {
        handled.push(`${label} FAIL`);
        throw Object.assign(new Error('payment-svc 503'), { name: 'HTTPError', status: 503 });
      }
      handled.push(label);
    },
  });
  return {
    d,
    consumer,
    handled,
    events,
    runs,
    trace,
    produce: (from, to) =>
      produceAsAdmin(
        d.mainTopic,
        Array.from({ length: to - from + 1 }, (_, i) => String(from + i)).flatMap((value) => KEYS.map((key, i) => ({ key, value, partition: i % 2 }))),
      ),
  };
}

/** The group's state and what each member was assigned, as the broker has it: what a stalled member was given. */
export async function groupAssignments(groupId: string): Promise<string> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return groups
      .map((g) => `${g.groupId} ${g.state} ${g.protocol}: ${g.members.map((m) => `${m.clientId} ${JSON.stringify(AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? null)}`).join('; ')}`)
      .join('\n');
  } finally {
    await admin.disconnect();
  }
}

/** Each key's first successful runs, in the order they ran (a run again may come later). */
export function firstRuns(m: Member): Record<string, string[]> {
  return Object.fromEntries(
    KEYS.map((key) => {
      const mine = m.handled.filter((h) => h.startsWith(`${key}:`) && !h.endsWith('FAIL'));
      return [key, mine.filter((h, i) => mine.indexOf(h) === i)];
    }),
  );
}

export const expectedRuns = (to: number) => Object.fromEntries(KEYS.map((key) => [key, Array.from({ length: to }, (_, i) => `${key}:${i + 1}`)]));

/** Whether every key's records up to `to` ran. */
export const allRan = (m: Member, to: number) => KEYS.every((k) => m.handled.includes(`${k}:${to}`));

/** How long a pbkdf2 of about a millisecond takes to come back: the libuv pool's wait, capped at `capMs`. */
export function poolWait(capMs: number): Promise<number> {
  const started = Date.now();
  return Promise.race([
    new Promise<number>((resolve) => pbkdf2('x', 'y', 1_000, 32, 'sha256', () => resolve(Date.now() - started))),
    sleep(capMs).then(() => capMs),
  ]);
}

/** stop()'s outcome and how long it took. */
export async function timedStop(consumer: RetryingConsumer): Promise<{ ms: number; outcome: string }> {
  const started = Date.now();
  const outcome = await consumer.stop().then(() => 'stopped', (error: unknown) => `refused: ${String((error as Error).message).slice(0, 100)}`);
  return { ms: Date.now() - started, outcome };
}
