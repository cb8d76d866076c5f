import { groupRecords, recordJson } from '../../src/dlq/inspect';
import { replayMessage, replayRoute, replayTarget } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';
import { springDltHeaders, springRetryTopicHeaders } from './spring-bytes';

const consumer: ConsumerModel = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
const MAIN_TS = 1_600_000_000_123;

/** A DLQ holding one record of each of Spring's layouts, both failed at offset 41 of main partition 3. */
async function springDlq() {
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  const main = { topic: consumer.mainTopic.name, partition: 3, offset: 41, timestamp: MAIN_TS, group: 'billing-spring' };
  // @RetryableTopic's DLT record: the headers of the first hop, attempts raised on the last.
  double.append(consumer.dlq.name, 0, { key: 'order-1', value: 'v1', headers: springRetryTopicHeaders(main, 3, MAIN_TS + 3_000) });
  // The recoverer's DLT record (DefaultErrorHandler on the main topic).
  double.append(consumer.dlq.name, 0, { key: 'order-2', value: 'v2', headers: springDltHeaders(main) });
  const session = await DlqSession.open(double.kafka(), consumer);
  await session.close();
  return session.records;
}

describe("krt dlq on a DLT written by Spring (either of its layouts, Spring's exact bytes)", () => {
  it("inspect groups the records by the cause Spring's listener wrapper names and by the main topic", async () => {
    const groups = groupRecords(await springDlq());
    expect(groups.map((g) => [g.errorClass, g.originalTopic, g.count])).toEqual([['java.lang.IllegalStateException', consumer.mainTopic.name, 2]]);
  });

  it('--json names the main record: topic, partition, offset and timestamp', async () => {
    const records = await springDlq();
    expect(records.map((r) => recordJson(r)).map((j) => [j.originalTopic, j.originalPartition, j.originalOffset, j.originalTimestamp, j.errorMessage])).toEqual([
      [consumer.mainTopic.name, 3, '41', new Date(MAIN_TS).toISOString(), 'Listener failed; boom'],
      [consumer.mainTopic.name, 3, '41', new Date(MAIN_TS).toISOString(), 'Listener failed; boom'],
    ]);
  });

  it("replay plans each record onto Spring's original partition, and the tier record names the main record", async () => {
    const records = await springDlq();
    const route = replayRoute(consumer);
    expect(records.map((r) => replayTarget(consumer, route, r).partition)).toEqual([3, 3]);
    for (const r of records) {
      expect(replayMessage(consumer, route, r, 0).headers).toMatchObject({ [HEADERS.originalPartition]: '3', [HEADERS.originalOffset]: '41', [HEADERS.originalTimestamp]: String(MAIN_TS) });
    }
  });
});
