import { discardRecords, replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';
import { recordEntries } from './audit-record-entries';

/**
 * A replay or discard told to stop (the console stopping, Ctrl-C) ends at its next step
 * boundary: every step it began is published, audited and committed, and the records of the
 * steps it never began stay unhandled in the DLQ, said so. Before, a console stop waited for
 * the whole replay (minutes at a low rate), missed its deadline and exited wherever the
 * replay was (attack on #25).
 */
/** The rate limiter's clock: a wait passes at once, as simulated time. */
function simulatedClock() {
  let at = 0;
  return { now: () => at, sleep: async (ms: number) => void (at += ms) };
}

function dlqOf(count: number, originalPartitions = 1): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  for (let i = 0; i < count; i++) {
    double.append(consumer.dlq.name, 0, { key: `order-${i}`, value: `v${i}`, headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(i % originalPartitions), [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'DownstreamTimeout' } });
  }
  return { consumer, double };
}

describe('a DLQ action told to stop', () => {
  it('a replay stopped as a step ends begins no other step: what it published is audited and committed, the rest stays unhandled', async () => {
    const { consumer, double } = dlqOf(10);
    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    const stop = new AbortController();
    // A rate of 2 a second makes steps of 2 records; the stop comes as the first step ends.
    const result = await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 2, by: 'ana', clock: simulatedClock(), signal: stop.signal, onProgress: () => stop.abort() });
    await session.close();
    const next = await DlqSession.open(kafka, consumer);
    await next.close();
    expect({
      handled: result.handled.map((r) => r.id),
      unreached: result.unreached.map((r) => r.id),
      published: double.messages(consumer.tiers[0]!.name).length,
      audited: recordEntries(double, consumer.dlqAudit.name).length,
      stillUnhandled: next.records.map((r) => r.id),
    }).toEqual({
      handled: ['0:0', '0:1'],
      unreached: ['0:2', '0:3', '0:4', '0:5', '0:6', '0:7', '0:8', '0:9'],
      published: 2,
      audited: 2,
      stillUnhandled: ['0:2', '0:3', '0:4', '0:5', '0:6', '0:7', '0:8', '0:9'],
    });
  });

  it('a stop before the first step publishes, audits and commits nothing, and leaves no lease behind', async () => {
    const { consumer, double } = dlqOf(3);
    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    const stop = new AbortController();
    stop.abort();
    const result = await discardRecords(kafka, session, session.records, { reason: 'bad data', by: 'ana' }, { signal: stop.signal });
    await session.close();
    // Another command may act at once: the stopped one holds no lease.
    const other = await DlqSession.open(kafka, consumer);
    const discarded = await discardRecords(kafka, other, other.records, { reason: 'bad data', by: 'bob' });
    await other.close();
    expect({ handled: result.handled.length, unreached: result.unreached.length, byBob: discarded.handled.length }).toEqual({ handled: 0, unreached: 3, byBob: 3 });
  });

  it('a replay stopped within a step ends after the part in hand: one target partition\'s records published, audited and committed', async () => {
    // Six records for three partitions of the tier, in one step (rate 100): three parts.
    const { consumer, double } = dlqOf(6, 3);
    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    const stop = new AbortController();
    double.fault = (operation) => {
      if (operation.kind === 'commit' && operation.group === consumer.groups.replay) stop.abort();
    };
    const result = await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 100, by: 'ana', clock: simulatedClock(), signal: stop.signal });
    await session.close();
    expect({
      handled: result.handled.map((r) => r.id),
      unreached: result.unreached.map((r) => r.id).sort(),
      published: double.messages(consumer.tiers[0]!.name).length,
      audited: recordEntries(double, consumer.dlqAudit.name).length,
    }).toEqual({ handled: ['0:0', '0:3'], unreached: ['0:1', '0:2', '0:4', '0:5'], published: 2, audited: 2 });
  });

  it('a replay stopped while it waits for the rate limit sends nothing more', async () => {
    const { consumer, double } = dlqOf(3);
    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    const stop = new AbortController();
    // At 1 record a second the second record waits; the stop comes during that wait, which never ends by itself.
    const clock = { now: () => 0, sleep: () => (stop.abort(), new Promise<void>(() => {})) };
    const result = await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 1, by: 'ana', clock, signal: stop.signal });
    await session.close();
    expect({ handled: result.handled.map((r) => r.id), unreached: result.unreached.map((r) => r.id), published: double.messages(consumer.tiers[0]!.name).length }).toEqual({
      handled: ['0:0'],
      unreached: ['0:1', '0:2'],
      published: 1,
    });
  });
});
