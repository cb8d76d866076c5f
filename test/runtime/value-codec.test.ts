import { z } from 'zod';
import { decodeRetryHeaders } from '../../src/runtime/headers';
import type { DecodedRecord } from '../../src/runtime/value-codec';
import { billingDescriptor } from './descriptor';
import { harness, httpError } from './harness';

const Order = z.object({ orderId: z.string(), amountCents: z.number().int().positive() });
type Order = z.infer<typeof Order>;
const json = billingDescriptor({ value: { kind: 'json-schema', schema: z.toJSONSchema(Order, { io: 'input' }) as Record<string, unknown> } });

/** The typed record a handler of `json` receives (the generated package types it so). */
const order = (record: unknown) => (record as DecodedRecord<Order>).value;

describe('a consumer with a value codec', () => {
  it('hands the handler the decoded value, and sends a malformed one to the DLQ at attempt 1 without calling the handler', async () => {
    const seen: Order[] = [];
    const h = harness(json, async (record) => {
      seen.push(order(record));
    });
    h.produce('k', JSON.stringify({ orderId: 'o-1', amountCents: 250 }));
    h.produce('k', JSON.stringify({ orderId: 'o-2', amountCents: 'a lot' }));
    h.produce('k', '{not json');
    await h.retrying.start();
    await h.broker.run();

    expect(seen).toEqual([{ orderId: 'o-1', amountCents: 250 }]);
    const dead = h.broker.records(json.dlqTopic);
    expect(dead.map((r) => r.value?.toString())).toEqual([JSON.stringify({ orderId: 'o-2', amountCents: 'a lot' }), '{not json']);
    const [wrongField, notJson] = dead.map((r) => decodeRetryHeaders(r.headers));
    expect(wrongField).toMatchObject({ attempt: 1, errorClass: 'DeserializationError' });
    expect(wrongField!.errorMessage).toContain('amountCents');
    expect(notJson).toMatchObject({ attempt: 1, errorClass: 'DeserializationError' });
    expect(notJson!.errorMessage).toMatch(/JSON/);
    for (const tier of json.tiers) expect(h.broker.records(tier.topic)).toEqual([]);
  });

  it('counts refused values in their own classification', async () => {
    const h = harness(json, async () => {});
    h.produce('k', '[]');
    await h.retrying.start();
    await h.broker.run();
    const text = await h.registry.metrics();
    expect(text).toContain('kafka_dlq_routed_total{consumer="billing-order-confirmed",error_class="deserialization"} 1');
    expect(text).toContain('kafka_dlq_routed_total{consumer="billing-order-confirmed",error_class="permanent-data"} 0');
  });

  it('never retries a refused value in place, even on an in-place-only consumer', async () => {
    const inPlaceOnly = billingDescriptor({ ...json, ordering: 'in-place-only', tiers: [] });
    let calls = 0;
    const h = harness(inPlaceOnly, async () => {
      calls++;
    });
    h.produce('k', 'null');
    await h.retrying.start();
    await h.broker.run();
    expect(calls).toBe(0);
    expect(h.events.filter((e) => e.type === 'failed-in-place')).toEqual([]);
    expect(decodeRetryHeaders(h.broker.records(inPlaceOnly.dlqTopic)[0]!.headers)).toMatchObject({ attempt: 1, errorClass: 'DeserializationError' });
  });

  it('still routes the errors of the handler of a decoded value as before', async () => {
    const h = harness(json, async () => {
      throw httpError(503);
    });
    h.produce('k', JSON.stringify({ orderId: 'o-1', amountCents: 1 }));
    await h.retrying.start();
    await h.broker.run({ until: 1_000_000 });
    expect(h.broker.records(json.tiers[0]!.topic)).toHaveLength(1);
    expect(h.broker.records(json.dlqTopic)).toEqual([]);
  });

  it('refuses to start a consumer whose descriptor names a decode function that was not passed in', () => {
    const named = billingDescriptor({ value: { kind: 'decode', module: '@acme/order-events', export: 'decodeOrder' } });
    expect(() => harness(named, async () => {})).toThrow(
      'consumer billing-order-confirmed decodes its values with decodeOrder from @acme/order-events; create it through its generated router package, or pass that function as decodeValue',
    );
  });
});
