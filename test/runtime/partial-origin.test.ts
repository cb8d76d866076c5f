import { decodeRetryHeaders } from '../../src/runtime/headers';
import { decodeOrigin } from '../../src/runtime/record-origin';
import { SPRING_MAIN, springNamed } from './spring-consumer';
import { harness, httpError } from './harness';
import { springRetryTopicHeaders } from './spring-bytes';

/**
 * #26 part 4: every x-original-* a hop writes must describe the main-topic record.
 * A tier record whose origin headers are only partly readable must never have the missing
 * parts filled in with the tier record's own coordinates (the very bug #26 fixed for a
 * wholly Spring-written record).
 */
const MAIN = SPRING_MAIN;

async function routedOn(headers: Record<string, Buffer | string>) {
  const d = springNamed('x');
  const h = harness(d, async () => {
    throw httpError(503);
  });
  h.broker.append(d.tiers[0]!.topic, { key: Buffer.from('order-9'), value: Buffer.from('v'), partition: 1, timestamp: 1_000_000, headers: headers as Record<string, string> });
  await h.retrying.start();
  await h.broker.run({ maxSteps: 5_000 });
  await h.retrying.stop();
  return [h.broker.records(d.tiers[1]!.topic, 1)[0]!, h.broker.records(d.dlqTopic, 1)[0]!];
}

describe('a tier record whose origin is only partly readable, routed on by the runtime', () => {
  // Once a defect, fixed in #26 (src/runtime/destination-record.ts:44-46 with record-origin.ts:101-102): decodeOrigin takes a
  // layout whole as soon as it has any one field, and buildDestinationRecord fills every field the
  // layout lacks with the tier record's own (`origin?.offset ?? record.message.offset`,
  // `origin?.partition ?? record.partition`). A record carrying our x-original-topic/partition without
  // a usable x-original-offset (a hop that wrote it as text Spring-style, a header tool that dropped it)
  // next to Spring's complete kafka_original-* gets the tier offset 0 written as the main record's
  // offset, and Spring's 2 is ignored. The DLQ then says "offset 0 of orders.confirmed" (replay's dry
  // run, inspect, key-parking's releases all trust it). Class: a partial origin is completed with the
  // tier record's coordinates. Fix: take each original-* field from the first layout that has it (or
  // leave it out), and fall back to the record's own coordinates only when no layout names an origin.
  it("takes the offset from Spring's headers when ours lack it, never the tier record's own", async () => {
    const headers = { ...springRetryTopicHeaders(MAIN, 2, 1_001_000), 'x-original-topic': MAIN.topic, 'x-original-partition': String(MAIN.partition) };
    for (const record of await routedOn(headers)) {
      expect(decodeRetryHeaders(record.headers).originalOffset).toBe(String(MAIN.offset));
    }
  });

  // Same defect, one layout: Spring's offset header cut to 4 bytes reads as absent, and the tier
  // record's own offset (0) is then written as the main record's.
  it("leaves the offset unknown, rather than writing the tier record's own, when Spring's is unreadable", async () => {
    const headers = springRetryTopicHeaders(MAIN, 2, 1_001_000);
    const cut = { ...headers, 'kafka_original-offset': headers['kafka_original-offset']!.subarray(4) };
    for (const record of await routedOn(cut)) {
      expect(decodeRetryHeaders(record.headers).originalOffset).not.toBe('0');
    }
  });
});

describe('decodeOrigin on odd Spring bytes', () => {
  it("reads the first of Spring's repeated original-* headers, and never a negative or cut integer", () => {
    const headers = springRetryTopicHeaders(MAIN, 2, 1_001_000);
    const twice = { ...headers, 'kafka_original-offset': [headers['kafka_original-offset']!, Buffer.alloc(8)] };
    expect(decodeOrigin(twice)).toMatchObject({ layout: 'spring-retry-topic', offset: '2', partition: 1 });
    const negative = { ...headers, 'kafka_original-partition': Buffer.from([0xff, 0xff, 0xff, 0xff]) };
    expect(decodeOrigin(negative)?.partition).toBeUndefined();
    const cut = { ...headers, 'kafka_original-partition': Buffer.from([0, 1]) };
    expect(decodeOrigin(cut)?.partition).toBeUndefined();
  });
});
