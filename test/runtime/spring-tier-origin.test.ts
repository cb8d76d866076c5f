import { HEADERS } from '../../src/naming/headers';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { decodeRetryHeaders } from '../../src/runtime/headers';
import { decodeSpringDltHeaders, decodeSpringRetryTopicHeaders } from '../../src/runtime/spring-headers';
import { SPRING_MAIN, springNamed } from './spring-consumer';
import { harness, httpError } from './harness';
import { springDltHeaders, springRetryTopicHeaders } from './spring-bytes';

const MAIN = SPRING_MAIN;
const STEPS = { maxSteps: 5_000 };

/** Runs a consumer that always fails over one record Spring put on the first retry topic (its offset there is 0). */
async function throughTheLadder(headerStyle: ConsumerDescriptor['headerStyle']) {
  const d = springNamed(headerStyle);
  const h = harness(d, async () => {
    throw httpError(503);
  });
  h.broker.append(d.tiers[0]!.topic, { key: Buffer.from('order-9'), value: Buffer.from('v'), partition: 1, timestamp: 1_000_000, headers: springRetryTopicHeaders(MAIN, 2, 1_001_000) });
  await h.retrying.start();
  await h.broker.run(STEPS);
  return { d, tier2: h.broker.records(d.tiers[1]!.topic, 1)[0]!, dead: h.broker.records(d.dlqTopic, 1)[0]! };
}

describe("a tier record written by Spring's @RetryableTopic, routed on by the runtime", () => {
  it.each(['x', 'x+spring', 'x+spring-retry-topic'] as const)("keeps x-original-* on the main record's offset and timestamp across tiers (%s style)", async (style) => {
    const { tier2, dead } = await throughTheLadder(style);
    for (const record of [tier2, dead]) {
      expect(decodeRetryHeaders(record.headers)).toMatchObject({ originalTopic: MAIN.topic, originalPartition: MAIN.partition, originalOffset: '2', originalTimestamp: MAIN.timestamp });
    }
  });

  it("keeps Spring's kafka_original-* and retry_topic-original-timestamp on the main record (x+spring-retry-topic)", async () => {
    const { tier2, dead } = await throughTheLadder('x+spring-retry-topic');
    for (const record of [tier2, dead]) {
      expect(decodeSpringRetryTopicHeaders(record.headers)).toMatchObject({ originalTopic: MAIN.topic, originalPartition: 1, originalOffset: '2', originalTimestamp: MAIN.timestamp, retryOriginalTimestamp: MAIN.timestamp });
    }
    expect(decodeSpringRetryTopicHeaders(tier2.headers).attempts).toBe(3);
  });

  it("keeps the group that first failed the record, Spring's main group, in kafka_dlt-original-consumer-group (x+spring-retry-topic)", async () => {
    const { tier2, dead } = await throughTheLadder('x+spring-retry-topic');
    expect([decodeSpringRetryTopicHeaders(tier2.headers).consumerGroup, decodeSpringRetryTopicHeaders(dead.headers).consumerGroup]).toEqual([MAIN.group, MAIN.group]);
  });

  it("writes kafka_dlt-original-* of the main record on the DLQ record (x+spring)", async () => {
    const { dead } = await throughTheLadder('x+spring');
    expect(decodeSpringDltHeaders(dead.headers)).toMatchObject({ originalTopic: MAIN.topic, originalPartition: 1, originalOffset: '2', originalTimestamp: MAIN.timestamp });
  });
});

describe('a record Spring dead-lettered that is replayed onto a tier and fails again', () => {
  it("reaches the DLQ naming the main record of Spring's kafka_dlt-original-* headers, timestamp included", async () => {
    const d = springNamed('x+spring');
    const h = harness(d, async () => {
      throw httpError(503);
    });
    h.broker.append(d.tiers[1]!.topic, { key: Buffer.from('order-9'), value: Buffer.from('v'), partition: 1, timestamp: 1_000_000, headers: springDltHeaders(MAIN) });
    await h.retrying.start();
    await h.broker.run(STEPS);
    const [dead] = h.broker.records(d.dlqTopic, 1);
    expect(decodeRetryHeaders(dead!.headers)).toMatchObject({ originalTopic: MAIN.topic, originalPartition: 1, originalOffset: '2', originalTimestamp: MAIN.timestamp });
    expect(dead!.headers[HEADERS.originalOffset]).toBe('2');
  });
});

describe('our own x-* layout', () => {
  it("a record of a Spring tier that also carries x-original-* (ours, copied by Spring) keeps ours", async () => {
    const d = springNamed('x+spring-retry-topic');
    const h = harness(d, async () => {
      throw httpError(503);
    });
    const ours = { [HEADERS.originalTopic]: MAIN.topic, [HEADERS.originalPartition]: '1', [HEADERS.originalOffset]: '2', [HEADERS.originalTimestamp]: String(MAIN.timestamp) };
    h.broker.append(d.tiers[0]!.topic, { key: Buffer.from('k'), value: Buffer.from('v'), partition: 1, headers: { ...springRetryTopicHeaders({ ...MAIN, offset: 7 }, 2, 0), ...ours } });
    await h.retrying.start();
    await h.broker.run(STEPS);
    expect(decodeRetryHeaders(h.broker.records(d.dlqTopic, 1)[0]!.headers).originalOffset).toBe('2');
  });
});

describe('kafka_dlt-original-consumer-group in the x+spring-retry-topic layout', () => {
  it('names the main group on every tier and on the DLQ record of a record that failed on the main topic, as @RetryableTopic does', async () => {
    const d = springNamed('x+spring-retry-topic');
    const h = harness(d, async () => {
      throw httpError(503);
    });
    h.produce('order-1', 'v', 1);
    await h.retrying.start();
    await h.broker.run(STEPS);
    const groups = [d.tiers[0]!.topic, d.tiers[1]!.topic, d.dlqTopic].map((topic) => decodeSpringRetryTopicHeaders(h.broker.records(topic, 1)[0]!.headers).consumerGroup);
    expect(groups).toEqual([d.groups.main, d.groups.main, d.groups.main]);
  });
});
