import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { createTopicsOf, testDescriptor } from '../helpers/kafka';

/** A park-by-key consumer on fresh topics (`tierSeconds`, `partitions` each); its main group reads the tiers too, as park-by-key needs. */
export async function parkByKeyConsumer(prefix: string, tierSeconds: readonly number[], partitions: number): Promise<ConsumerDescriptor> {
  const d = testDescriptor(prefix, tierSeconds);
  const descriptor: ConsumerDescriptor = { ...d, ordering: 'park-by-key', groups: { ...d.groups, retry: d.groups.main } };
  await createTopicsOf(descriptor, partitions);
  return descriptor;
}

/** Each handled record as `key:value`; the values in `failOnce` fail one time with a 503 (into the tier). */
export function recorder(failOnce: Set<string>) {
  const handled: string[] = [];
  const handler = async (record: ConsumedRecord) => {
    const label = `${record.message.key?.toString()}:${record.message.value?.toString()}`;
    if (failOnce.delete(label)) {
      handled.push(`${label} FAIL`);
      throw Object.assign(new Error('payment-svc 503'), { name: 'HTTPError', status: 503 });
    }
    handled.push(label);
  };
  return { handled, handler };
}

export interface StartOptions {
  readonly kafka?: KafkaPort;
  readonly parkingBudgetBytes?: number;
  readonly onEvent?: (e: RetryEvent) => void;
}

/**
 * Starts retrying consumers on `port` (within a describe): each still running after its test
 * is stopped then; `stop` stops one before (a restart, a member leaving).
 */
export function consumersOn(port: () => KafkaPort) {
  const running: RetryingConsumer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((c) => c.stop()));
  });
  const start = async (d: ConsumerDescriptor, handler: (r: ConsumedRecord) => Promise<void>, options: StartOptions = {}) => {
    const consumer = createRetryingConsumer(d, { kafka: port(), handler, ...options });
    running.push(consumer);
    await consumer.start();
    return consumer;
  };
  const stop = async (consumer: RetryingConsumer) => {
    await consumer.stop();
    running.splice(running.indexOf(consumer), 1);
  };
  return { start, stop };
}
