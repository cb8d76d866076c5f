import { ADMIN_USER, readBrokerInfo, restartBroker } from '../../scripts/kafka/broker';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { eventually } from '../helpers/eventually';
import { createTopicsOf, produceAsAdmin, testDescriptor } from '../helpers/kafka';
import { confluentPort } from '../../src/runtime/adapters/confluent';
import type { ConfluentKafkaLike } from '../../src/runtime/adapters/confluent';
import { confluentKafka } from '../helpers/kafka';
import { restoreSuiteBroker, sleep, suiteBrokerDir } from '../helpers/suite-broker';

/** The Confluent client, each consumer it makes (the port's, then each reader) writing its calls to `log`. */
function tracedKafka(log: string[]): ConfluentKafkaLike {
  const kafka = confluentKafka(ADMIN_USER);
  let made = 0;
  const t0 = Date.now();
  const trace = async <T>(what: string, p: Promise<T>): Promise<T> => {
    log.push(`${Date.now() - t0} ${what} begins`);
    try {
      const v = await p;
      log.push(`${Date.now() - t0} ${what} ends`);
      return v;
    } catch (error) {
      log.push(`${Date.now() - t0} ${what} fails ${String(error).slice(0, 80)}`);
      throw error;
    }
  };
  return {
    consumer: (config) => {
      const c = kafka.consumer(config) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      const name = made++ === 0 ? 'main' : `reader${made - 1}`;
      return new Proxy(c, {
        get(target, prop) {
          const v = Reflect.get(target, prop) as unknown;
          if (typeof v !== 'function') return v;
          if (prop === 'connect' || prop === 'disconnect' || prop === 'commitOffsets') return (...a: unknown[]) => trace(`${name}.${String(prop)}`, (v as (...a: unknown[]) => Promise<unknown>).apply(target, a));
          if (prop === 'dependentAdmin') {
            return () => {
              const admin = (v as () => Record<string, (...a: unknown[]) => Promise<unknown>>).apply(target);
              return new Proxy(admin, {
                get(at, ap) {
                  const av = Reflect.get(at, ap) as unknown;
                  if (typeof av !== 'function') return av;
                  return (...a: unknown[]) => trace(`${name}.admin.${String(ap)}`, (av as (...a: unknown[]) => Promise<unknown>).apply(at, a));
                },
              });
            };
          }
          return (v as (...a: unknown[]) => unknown).bind(target);
        },
      }) as never;
    },
    producer: (config) => kafka.producer(config),
    // For a run of this test at 286ab9f, whose adapter read through a plain admin client.
    admin: () => (kafka as unknown as { admin: () => unknown }).admin(),
  } as ConfluentKafkaLike;
}

jest.setTimeout(5 * 60_000);

async function parkByKey(prefix: string): Promise<ConsumerDescriptor> {
  const base = testDescriptor(prefix, [2]);
  const d: ConsumerDescriptor = { ...base, ordering: 'park-by-key', groups: { ...base.groups, retry: base.groups.main } };
  await createTopicsOf(d, 2);
  return d;
}

/**
 * Attack 46: park-by-key on the Confluent client, its state commits' refusals marked worth
 * waiting out again, stopped while the broker is down (waits and reads under way).
 *
 * Seen (also before the change): stop() returned only once the broker was back (68-82 s; never
 * without a restart): the group consumer's close, rd_kafka_consumer_close, waits for the broker.
 * Fixed: stop() waits for each client's close at most 10 s, then rejects saying they go on
 * closing in the background (retrying-consumer.ts CLOSE_PATIENCE_MS).
 */
describe('attack 46: park-by-key on the Confluent client, stopped during a broker outage', () => {
  it('stop() returns within its drain time-out and the clients\u2019 close patience while the broker is down, saying so', async () => {
    const dir = suiteBrokerDir();
    const d = await parkByKey('a46-pbk-stop');
    const handled: string[] = [];
    const events: string[] = [];
    const trace: string[] = [];
    let consumer: RetryingConsumer | undefined = createRetryingConsumer(d, {
      kafka: confluentPort(tracedKafka(trace), { consumerConfig: { sessionTimeout: 10_000 } }),
      publishBackoff: { initialMs: 100, maxMs: 1_000 },
      drainTimeoutMs: 5_000,
      onEvent: (e) => void (e.type !== 'processed' && events.push(`${Date.now()} ${e.type}${'error' in e ? ` (${String(e.error).slice(0, 100)})` : ''}`)),
      handler: async (record) => {
        const label = `${record.message.key?.toString()}:${record.message.value?.toString()}`;
        handled.push(label);
        if (label.endsWith(':1')) throw Object.assign(new Error('payment-svc 503'), { name: 'HTTPError', status: 503 });
        await sleep(50);
      },
    });
    try {
      await consumer.start();
      await produceAsAdmin(d.mainTopic, Array.from({ length: 10 }, (_, v) => ['a', 'b', 'c', 'd'].map((key, i) => ({ key, value: String(v + 1), partition: i % 2 }))).flat());
      await eventually('some records handled', () => (handled.length >= 8 ? true : undefined), 90_000);
      process.kill(readBrokerInfo(dir)!.pid, 'SIGKILL');
      await sleep(3_000);
      const stopping = Date.now();
      trace.push('--- stop() called');
      const stopped = consumer.stop().then(() => 'stopped', (error: unknown) => `stop() refused: ${(error as Error).message}`);
      const outcome = await Promise.race([stopped, sleep(60_000).then(() => 'still stopping after 60 s')]);
      const stopMs = Date.now() - stopping;
      process.stdout.write(`${outcome}: ${stopMs} ms; events: ${events.slice(-15).join(' | ')}\ntrace:\n${trace.slice(-60).join('\n')}\n`);
      if (outcome !== 'stopped') {
        await restartBroker(dir);
        const late = await Promise.race([stopped, sleep(60_000).then(() => 'still stopping 60 s after the broker came back')]);
        process.stdout.write(`${late} at ${Date.now() - stopping} ms\ntrace:\n${trace.slice(-30).join('\n')}\n`);
      }
      consumer = undefined;
      // The drain (5 s), then at most 10 s for the consumers' close and 10 s for the producer's; and it says why.
      expect(stopMs).toBeLessThan(27_000);
      expect(outcome).toMatch(/^stop\(\) refused: stop\(\): consumer a46-pbk-stop\S*'s clients did not close within 10 s \(is the broker away\?\)/);
    } finally {
      await consumer?.stop().catch(() => undefined);
      await restoreSuiteBroker(dir);
    }
  });
});
