import { createFetchGate } from '../../src/runtime/adapters/platformatic-fetch-gate';
import type { FetchCallback, FetchingConsumer, GatedFetchOptions, GatedFetchResponse } from '../../src/runtime/adapters/platformatic-fetch-gate';

/**
 * h147: the runtime learns a topic's id only from the records it is handed, so a partition that
 * reads nothing under the new id (its position the new log's end: h147-tier-new-log-ends-at-old-
 * position; or one that read nothing under the old id: h147-main-recreated-under-member-that-
 * read-nothing) never tells a topic created again, and the new log's first records are read past
 * or wait for a later record. @platformatic/kafka's fetch responses name every topic fetched by
 * its id, records or not: the gate tells the adapter when a response names a topic by another id
 * than the responses before it (once, before the push; not for an id since replaced, the name
 * placeholder or the zero id), and the adapter seeks the topic's partitions to their start, as the
 * Confluent adapter does on its polled ids.
 */
const ORDERS = 'orders';
const OLD_ID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const NEW_ID = 'ffeeddcc-bbaa-9988-7766-554433221100';

/** A consumer whose metadata names `ids.orders` and whose fetch answers every requested partition with no record. */
function emptyFetches(ids: { orders: string }): FetchingConsumer {
  return {
    metadata: (_options, callback) => callback(null, { topics: new Map([[ORDERS, { id: ids.orders }]]) }),
    fetch(options: GatedFetchOptions, callback: FetchCallback) {
      const response: GatedFetchResponse = { responses: options.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, records: undefined })) })) };
      callback(null, response);
    },
  };
}

describe('the @platformatic/kafka fetch gate, a topic whose id changes in responses without records', () => {
  it('tells the change once, before the push, and not for the first id, a repeat, an id since replaced or one that names none', () => {
    const ids = { orders: OLD_ID };
    const consumer = emptyFetches(ids);
    const told: string[] = [];
    const gate = createFetchGate(consumer, () => [ORDERS], undefined, (topic) => told.push(`${topic} before push: ${pushed}`));
    let pushed = 0;
    const fetchNow = () => consumer.fetch({ topics: [{ topicId: ids.orders, partitions: [{ partition: 0 }, { partition: 1 }] }] }, () => void pushed++);
    fetchNow(); // the first id: no change
    fetchNow();
    ids.orders = NEW_ID; // deleted and created again
    fetchNow();
    fetchNow(); // the same new id: no change
    ids.orders = OLD_ID; // a broker answering from stale metadata
    fetchNow();
    ids.orders = '00000000-0000-0000-0000-000000000000'; // a broker before topic ids
    fetchNow();
    ids.orders = ORDERS; // Fetch before v13: the name where the id goes
    fetchNow();
    gate.restore();
    expect(pushed).toBe(7);
    expect(told).toEqual([`${ORDERS} before push: 2`]);
  });
});
