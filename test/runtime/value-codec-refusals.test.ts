import { decodeRetryHeaders } from '../../src/runtime/headers';
import type { RetryEvent } from '../../src/runtime/events';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { refuse, type ValueDecoder } from '../../src/runtime/value-codec';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError } from './harness';

/**
 * #26 (typed values): a value codec's refusals are permanent at attempt 1 wherever the record
 * is (main topic, parked behind its key, a tier) and release a parked key; a decoder's other
 * errors (it could not run) go through the consumer's error policy like a handler's; and
 * nothing a decoder does escapes the decode step.
 */
const T0 = 1_000_000;

function world(ordering: 'park-by-key' | 'unordered', decodeValue: ValueDecoder, failOnce: Set<string> = new Set()) {
  const consumer = billingDescriptor({ ordering, ...(ordering === 'park-by-key' ? { groups: { ...billingDescriptor().groups, retry: 'billing-order-confirmed' } } : {}) });
  const clock = new VirtualClock(T0);
  const broker = new MemoryBroker(clock);
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  const handled: string[] = [];
  const events: RetryEvent[] = [];
  const retrying = createRetryingConsumer(consumer, {
    kafka: broker.port(),
    clock,
    random: () => 0.5,
    decodeValue,
    onEvent: (e) => events.push(e),
    handler: async (record: ConsumedRecord) => {
      const value = (record as ConsumedRecord & { value: string }).value;
      const label = `${record.message.key?.toString()}:${value}`;
      if (failOnce.delete(label)) {
        handled.push(`${label} FAIL`);
        throw httpError(503);
      }
      handled.push(label);
    },
  });
  const produce = (key: string, value: string, topic = consumer.mainTopic, headers: Record<string, string> = {}) =>
    broker.append(topic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0, headers });
  return { consumer, clock, broker, handled, events, retrying, produce };
}

/** Refuses values that start with 'bad'; hands the others on as text. */
const textUnlessBad: ValueDecoder = (value) => {
  const text = value?.toString('utf8') ?? '';
  if (text.startsWith('bad')) refuse(`cannot decode ${text}`);
  return text;
};

describe('a value codec on a park-by-key consumer', () => {
  it('sends a poison record parked behind its key to the DLQ at attempt 1, keeps the key in order and releases it', async () => {
    const w = world('park-by-key', textUnlessBad, new Set(['k:first']));
    w.produce('k', 'first');
    w.produce('k', 'bad-second');
    w.produce('k', 'third');
    await w.retrying.start();
    await w.broker.run();
    await w.retrying.stop();
    expect(w.handled).toEqual(['k:first FAIL', 'k:first', 'k:third']);
    const dead = w.broker.records(w.consumer.dlqTopic);
    expect(dead.map((r) => r.value?.toString())).toEqual(['bad-second']);
    expect(decodeRetryHeaders(dead[0]!.headers)).toMatchObject({ attempt: 1, errorClass: 'DeserializationError' });
  });

  it('sends a tier record whose value no longer decodes straight to the DLQ, and runs the next record of its key', async () => {
    // The codec changes while the record waits in a tier (a new schema is deployed): its value is refused there.
    const decode: ValueDecoder = (value, record) => {
      const text = value?.toString('utf8') ?? '';
      if (text === 'first' && record.topic !== 'orders.confirmed') refuse(`${text} does not fit the new schema`);
      return text;
    };
    const w = world('park-by-key', decode, new Set(['k:first']));
    w.produce('k', 'first');
    w.produce('k', 'after');
    await w.retrying.start();
    await w.broker.run();
    await w.retrying.stop();
    const dead = w.broker.records(w.consumer.dlqTopic);
    expect(dead.map((r) => r.value?.toString())).toEqual(['first']);
    expect(decodeRetryHeaders(dead[0]!.headers)).toMatchObject({ attempt: 2, errorClass: 'DeserializationError' });
    expect(w.handled).toEqual(['k:first FAIL', 'k:after']);
    for (const tier of w.consumer.tiers.slice(1)) expect(w.broker.records(tier.topic)).toEqual([]);
  });
});

/** Runs one record through a consumer whose decoder is `decode`; what the broker holds after. */
async function oneRecord(decode: ValueDecoder) {
  const w = world('unordered', decode);
  w.produce('k', 'anything');
  await w.retrying.start();
  await w.broker.run({ maxSteps: 200 });
  await w.retrying.stop();
  const firstAttemptDead = w.broker.records(w.consumer.dlqTopic).filter((r) => decodeRetryHeaders(r.headers).attempt === 1);
  return { w, firstAttemptDead, firstTier: w.broker.records(w.consumer.tiers[0]!.topic) };
}

describe('a refusal, however a decoder signals it', () => {
  it.each<[string, ValueDecoder]>([
    ['refuse()', () => refuse('not an order')],
    ['a rejected DeserializationError', async () => refuse('not an order')],
    ["another runtime copy's DeserializationError (by name)", () => {
      throw Object.assign(new Error('not an order'), { name: 'DeserializationError' });
    }],
  ])('sends the record to the DLQ at attempt 1 when the decoder refuses with %s', async (_name, decode) => {
    const { w, firstAttemptDead } = await oneRecord(decode);
    expect(firstAttemptDead).toHaveLength(1);
    expect(decodeRetryHeaders(firstAttemptDead[0]!.headers)).toMatchObject({ errorClass: 'DeserializationError', errorMessage: 'not an order' });
    expect(w.handled).toEqual([]);
    for (const tier of w.consumer.tiers) expect(w.broker.records(tier.topic)).toEqual([]);
  });
});

describe('a decoder error that is not a refusal goes through the error policy, like a handler error', () => {
  // Unknown errors are transient-long by default: the first tier, never the DLQ at attempt 1.
  it.each<[string, ValueDecoder]>([
    ['a string', () => {
      throw 'no schema for this';
    }],
    ['undefined', () => {
      throw undefined;
    }],
    ['an object whose toString throws', () => {
      throw { toString: () => { throw new Error('nope'); } };
    }],
    ['a late rejection with a non-Error', () => Promise.resolve().then(() => Promise.reject(42))],
    ['a result whose then cannot be read (a lazily decoded message)', () => new Proxy({}, {
      get(_target, name) {
        throw new Error(`field ${String(name)} is not in the schema`);
      },
    })],
  ])('sends the record to the first tier when the decoder throws %s, without calling the handler', async (_name, decode) => {
    const { w, firstAttemptDead, firstTier } = await oneRecord(decode);
    expect(firstAttemptDead).toEqual([]);
    expect(firstTier).toHaveLength(1);
    expect(w.handled).toEqual([]);
  });
});

describe('a refusal whose message cannot be read', () => {
  // Once a defect (#26): the wrapper read `error.message` itself, unguarded; a getter that throws (an
  // error from a proxy-based or WASM decoder) replaced the refusal with the getter's error, which climbed the tiers.
  it('still sends the record to the DLQ at attempt 1 as a DeserializationError', async () => {
    const unreadable = () => {
      const error = new Error('x');
      Object.defineProperty(error, 'name', { value: 'DeserializationError' });
      Object.defineProperty(error, 'message', { get: () => { throw new Error('message is gone'); } });
      throw error;
    };
    const { firstAttemptDead } = await oneRecord(unreadable);
    expect(firstAttemptDead).toHaveLength(1);
    expect(decodeRetryHeaders(firstAttemptDead[0]!.headers)).toMatchObject({ attempt: 1, errorClass: 'DeserializationError' });
  });
});

describe('a decoder that depends on a service (a Schema Registry client fetching the schema by id)', () => {
  // Once a defect (#26): every decoder rejection was a DeserializationError, so a registry outage sent
  // every healthy record to the DLQ at attempt 1, as if its bytes were poison.
  it('sends a record to a tier, not the DLQ, when the registry answers 503 while decoding it', async () => {
    const registryDown: ValueDecoder = async () => {
      throw httpError(503, 'schema registry: 503 Service Unavailable');
    };
    const { firstAttemptDead, firstTier } = await oneRecord(registryDown);
    expect(firstAttemptDead).toEqual([]);
    expect(firstTier).toHaveLength(1);
  });
});
