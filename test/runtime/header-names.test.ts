import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { harness, httpError } from './harness';

/**
 * #26 part 2: a record's own headers pass through every hop exactly. Header names
 * are bytes a producer chooses; none of them may be dropped or turned into something else.
 */
const model = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m'] })] })).model!.topologies[0]!.consumers[0]!;
const consumer = consumerDescriptor(model);

describe('a record with a header named __proto__', () => {
  // Once a defect, fixed in #26 (src/runtime/headers.ts:96 `out[name] = value` in passThroughHeaders, and the same assignment in
  // src/runtime/adapters/platformatic.ts:267 portMessage): copying headers by assignment into a plain `{}`
  // turns a header named `__proto__` into the object's prototype, so the tier and DLQ records lose it
  // (and their headers inherit whatever it was). Class: header names used as keys of plain objects.
  // Fix: build header maps with Object.create(null) or Object.defineProperty / a Map.
  it('keeps it, with its bytes, on the tier and DLQ records', async () => {
    const h = harness(consumer, async () => {
      throw httpError(503);
    });
    const headers = JSON.parse('{"__proto__": "weird but legal", "x-request-id": "r-1"}') as Record<string, string>;
    expect(Object.keys(headers)).toEqual(['__proto__', 'x-request-id']);
    h.produce('k', 'v', 0, headers);
    // The in-memory broker itself keeps it on the main-topic record: what follows is the runtime's doing.
    expect(Object.prototype.hasOwnProperty.call(h.broker.records(consumer.mainTopic)[0]!.headers, '__proto__')).toBe(true);
    await h.retrying.start();
    await h.broker.run();
    await h.retrying.stop();
    const [tierRecord] = h.broker.records(consumer.tiers[0]!.topic);
    const [dead] = h.broker.records(consumer.dlqTopic);
    for (const record of [tierRecord!, dead!]) {
      expect(record.headers['x-request-id']).toBe('r-1');
      expect(Object.prototype.hasOwnProperty.call(record.headers, '__proto__')).toBe(true);
      expect(String((record.headers as Record<string, unknown>)['__proto__'])).toBe('weird but legal');
    }
  });
});
