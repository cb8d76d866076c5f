import { replayRecords } from '../../src/dlq/replay';
import { replayMessage, replayRoute, replayTarget } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS, REPLAY_COUNT_HEADER } from '../../src/naming/headers';
import { committedOffsetOf, emptyParkState, encodeParkState, keyHash } from '../../src/runtime/park-state';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

const modelOf = (overrides: Record<string, unknown>): ConsumerModel => compile(aTopology({ consumers: [aConsumer(overrides)] })).model!.topologies[0]!.consumers[0]!;
const clock = { now: () => 0, sleep: async () => {} };
/** A rate limiter's clock whose waits pass at once, in simulated time. */
function advancingClock() {
  let at = 0;
  return { now: () => at, sleep: async (ms: number) => void (at += ms) };
}

function dlqFor(consumer: ConsumerModel, records: { key: string; partition: number; originalOffset?: string }[]): DlqKafkaDouble {
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  for (const r of records) {
    double.append(consumer.dlq.name, 0, {
      key: r.key,
      value: `value of ${r.key}`,
      headers: {
        [HEADERS.originalTopic]: consumer.mainTopic.name,
        [HEADERS.originalPartition]: String(r.partition),
        ...(r.originalOffset !== undefined ? { [HEADERS.originalOffset]: r.originalOffset } : {}),
        [HEADERS.errorClass]: 'DownstreamTimeout',
        [HEADERS.attempt]: '4',
        [HEADERS.firstFailedAt]: '1000',
        traceparent: '00-abc-def-01',
      },
    });
  }
  return double;
}

describe('the default replay route', () => {
  it('goes through the first tier, due now, to the original partition, with the original-* headers and the replay marker', async () => {
    const consumer = modelOf({ ladder: ['1m', '10m'] });
    const double = dlqFor(consumer, [{ key: 'order-1', partition: 3, originalOffset: '41' }]);
    const session = await DlqSession.open(double.kafka(), consumer);
    await session.close();
    const message = replayMessage(consumer, replayRoute(consumer), session.records[0]!, 1_700_000_000_000);
    expect(replayRoute(consumer).topic).toBe('orders.confirmed.retry.1m');
    expect(message).toMatchObject({ key: Buffer.from('order-1'), value: Buffer.from('value of order-1'), partition: 3 });
    expect(message.headers).toEqual({
      traceparent: '00-abc-def-01',
      [HEADERS.attempt]: '2',
      [HEADERS.dueAt]: '1700000000000',
      [HEADERS.originalTopic]: 'orders.confirmed',
      [HEADERS.originalPartition]: '3',
      [HEADERS.originalOffset]: '41',
      [HEADERS.replayedFromDlq]: 'orders.confirmed.dlq/0:0',
      [REPLAY_COUNT_HEADER]: '1',
    });
  });

  it('is refused for a consumer without tiers, naming --to main-topic', () => {
    expect(() => replayRoute(modelOf({ ordering: 'in-place-only', ladder: undefined }))).toThrow(
      "billing-order-confirmed has no retry tier (ordering in-place-only), so no topic leads back to its group alone; to replay to every group that reads orders.confirmed, run again with --to main-topic",
    );
  });

  it('refuses, for park-by-key, a record without an original offset: on the tier it would release the retry holding its key', async () => {
    const consumer = modelOf({ ordering: 'park-by-key' });
    const double = dlqFor(consumer, [{ key: 'order-1', partition: 3 }]);
    const session = await DlqSession.open(double.kafka(), consumer);
    await session.close();
    expect(() => replayTarget(consumer, replayRoute(consumer), session.records[0]!)).toThrow(/no usable x-original-offset: on the tier it would release the retry holding its key; replay it with --to main-topic/);
  });

  it('leaves in the DLQ, for park-by-key, the records whose key is in retry or parked, and replays the others', async () => {
    const consumer = modelOf({ ordering: 'park-by-key' });
    const double = dlqFor(consumer, [
      { key: 'held', partition: 3, originalOffset: '10' },
      { key: 'parked', partition: 3, originalOffset: '11' },
      { key: 'free', partition: 3, originalOffset: '12' },
      { key: 'held', partition: 4, originalOffset: '13' }, // the same key on another partition is another key's state
    ]);
    // The main group's committed state of partition 3: 'held' in retry since offset 50, 'parked' waits behind 'other'.
    const state = emptyParkState(60n);
    state.held.set(keyHash(Buffer.from('held')), 50n);
    state.held.set(keyHash(Buffer.from('other')), 51n);
    state.parked.set(55n, keyHash(Buffer.from('parked')));
    double.commit(consumer.groups.main, consumer.mainTopic.name, 3, committedOffsetOf(state).toString(), encodeParkState(state));

    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    const result = await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 100, by: 'tester', clock });
    await session.close();
    expect(result.waiting.map((w) => [w.record.id, w.reason])).toEqual([
      ['0:0', 'its key is in retry (offset 50 of orders.confirmed[3])'],
      ['0:1', '1 record of its key waits parked on orders.confirmed[3]'],
    ]);
    expect(double.messages(consumer.tiers[0]!.name).map((m) => [m.key!.toString(), m.partition])).toEqual([
      ['free', 3],
      ['held', 4],
    ]);
    const next = await DlqSession.open(kafka, consumer);
    await next.close();
    expect(next.records.map((r) => r.id)).toEqual(['0:0', '0:1']);
  });

  it('keeps a key\'s later record waiting behind the one it left, even once the key\'s retry ended', async () => {
    const consumer = modelOf({ ordering: 'park-by-key' });
    const double = dlqFor(consumer, [
      { key: 'held', partition: 3, originalOffset: '10' },
      { key: 'free', partition: 3, originalOffset: '11' },
      { key: 'held', partition: 3, originalOffset: '12' },
    ]);
    const state = emptyParkState(60n);
    state.held.set(keyHash(Buffer.from('held')), 50n);
    double.commit(consumer.groups.main, consumer.mainTopic.name, 3, committedOffsetOf(state).toString(), encodeParkState(state));
    // The key's retry ends while the replay runs, after its first step (one record a step at rate 1).
    double.fault = (operation) => {
      if (operation.kind === 'commit' && operation.group === consumer.groups.replay) {
        double.commit(consumer.groups.main, consumer.mainTopic.name, 3, '61', encodeParkState(emptyParkState(61n)));
      }
    };
    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    const result = await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 1, by: 'tester', clock: advancingClock() });
    await session.close();
    expect(result.waiting.map((w) => [w.record.id, w.reason])).toEqual([
      ['0:0', 'its key is in retry (offset 50 of orders.confirmed[3])'],
      ['0:2', 'an earlier record of its key waits in the DLQ, left by this replay'],
    ]);
    expect(double.messages(consumer.tiers[0]!.name).map((m) => m.key!.toString())).toEqual(['free']);
  });
});
