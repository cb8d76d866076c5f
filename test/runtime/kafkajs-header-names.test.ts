import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import type { KafkaJsLike } from '../../src/runtime/adapters/kafkajs';
import type { EachMessagePayload, PortMessage } from '../../src/runtime/port';
import { decodeRetryHeaders, passThroughHeaders } from '../../src/runtime/headers';

/* eslint-disable @typescript-eslint/no-require-imports */
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (r: { key: Buffer; value: Buffer; headers: Record<string, unknown> }) => { buffer: Buffer };
const decodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0/decoder') as (d: unknown, context: Record<string, unknown>) => PortMessage;
const KafkaJsDecoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => { readVarIntBytes(): Buffer };
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * #26/#28 leftover: kafkajs decodes a record's headers onto a plain `{}`, checking
 * `obj[name] === undefined`. A header named after anything on Object.prototype
 * (`constructor`, `toString`, `__proto__`) finds the prototype's member there, so it arrives
 * as an array holding that function or object and the header's bytes. Passed through to a
 * tier or the DLQ as is, the record's header turns into two (one of them the text of a
 * function); read by name, it is not the record's value.
 */
function asKafkaJsHandsIt(headers: [string, string][]): PortMessage {
  const byName: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of headers) {
    const seen = byName[name];
    byName[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  const wire = new KafkaJsDecoder(encodeRecord({ key: Buffer.from('k'), value: Buffer.from('v'), headers: byName }).buffer).readVarIntBytes();
  return decodeRecord(new KafkaJsDecoder(wire), { firstOffset: '7', firstTimestamp: '1000', magicByte: 2 });
}

/** The message the runtime receives from the kafkajs adapter, for a message kafkajs hands over. */
async function throughTheAdapter(message: PortMessage, via: 'eachMessage' | 'eachBatch'): Promise<PortMessage> {
  let run: ((r: Record<string, unknown>) => Promise<void>) | undefined;
  const kafka = {
    consumer: () => ({
      connect: async () => {},
      disconnect: async () => {},
      subscribe: async () => {},
      run: async (r: Record<string, unknown>) => void (run = async (payload) => (r[via] as (p: unknown) => Promise<void>)(payload)),
      on: () => {},
      events: { GROUP_JOIN: 'j', CRASH: 'c' },
    }),
    producer: () => ({}),
    admin: () => ({ connect: async () => {}, disconnect: async () => {}, fetchOffsets: async () => [] }),
  } as unknown as KafkaJsLike;
  const received: PortMessage[] = [];
  const consumer = kafkajsPort(kafka).consumer('g');
  if (via === 'eachMessage') await consumer.run({ eachMessage: async (p: EachMessagePayload) => void received.push(p.message) });
  else await consumer.run({ eachBatch: async (b) => void received.push(...b.messages) });
  const payload = via === 'eachMessage'
    ? { topic: 't', partition: 0, message, heartbeat: async () => {} }
    : { batch: { topic: 't', partition: 0, messages: [message] }, resolveOffset: () => {}, heartbeat: async () => {}, isRunning: () => true, isStale: () => false };
  await run!(payload);
  return received[0]!;
}

const text = (v: unknown) => (Array.isArray(v) ? v.map(String) : String(v));

describe('a kafkajs record with headers named after members of Object.prototype', () => {
  const handed = asKafkaJsHandsIt([
    ['constructor', 'c-1'],
    ['toString', 't-1'],
    ['__proto__', 'p-1'],
    ['x-request-id', 'r-1'],
  ]);

  it('is handed by kafkajs with arrays holding the prototype’s members (the shape this guards against)', () => {
    expect(Array.isArray(handed.headers!['constructor'])).toBe(true);
  });

  for (const via of ['eachMessage', 'eachBatch'] as const) {
    it(`reaches the runtime (${via}) with each header once, its own bytes, and nothing from the prototype`, async () => {
      const { headers } = await throughTheAdapter(asKafkaJsHandsIt([['constructor', 'c-1'], ['toString', 't-1'], ['__proto__', 'p-1'], ['x-request-id', 'r-1']]), via);
      const passed = passThroughHeaders(headers);
      expect(Object.keys(passed).sort()).toEqual(['__proto__', 'constructor', 'toString', 'x-request-id']);
      expect(Object.fromEntries(Object.keys(passed).map((name) => [name, text(passed[name])]))).toEqual({ constructor: 'c-1', toString: 't-1', ['__proto__']: 'p-1', 'x-request-id': 'r-1' });
      expect(headers!['hasOwnProperty']).toBeUndefined();
    });
  }

  it('keeps a repeated header’s values in order, and the runtime reads the last of ours', async () => {
    const { headers } = await throughTheAdapter(asKafkaJsHandsIt([['constructor', 'c-1'], ['constructor', 'c-2'], ['x-attempt', '2'], ['x-attempt', '3']]), 'eachMessage');
    expect(text(passThroughHeaders(headers)['constructor'])).toEqual(['c-1', 'c-2']);
    expect(decodeRetryHeaders(headers).attempt).toBe(3);
  });
});
