import { DlqSession } from '../../src/dlq/session';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';

/**
 * Attack 40, finding 2 (class: cosmetic; the outcome is right, the error is not). Fixed: commit()
 * takes the member's commit with the member and refuses with a DlqError once the session closed.
 *
 * Scenario: `krt console` stops (kafka-dlq.ts close(): session.close() of every open session)
 * while a replay or discard is inside DlqSession.commit(), past `await this.member()` and
 * waiting on its read of the replay group's committed states.
 *
 * Seen: close() -> release() clears `commitConfirmed`; commit() then calls
 * `this.commitConfirmed!(...)` and fails with "TypeError: this.commitConfirmed is not a
 * function". Nothing is committed (right: before db07d2f the captured member's commit
 * answered silently on a stopped kafkajs runner and the step was taken as recorded), but the
 * user is told of a TypeError instead of why the step's records are still unhandled (they
 * were published and audited: the next replay publishes them again).
 *
 * Code at fault: src/dlq/session.ts commit(): the non-null assertion on a field release() clears.
 *
 * Suggested fix: take the member's confirmed commit with the member (member() returns both, or
 * capture `this.commitConfirmed` right after `await this.member()`), and when the session was
 * closed or the lease released meanwhile, throw a DlqError saying the step was published but not
 * recorded as handled.
 */
describe('attack 40: a DLQ session closed while a step commits', () => {
  it('refuses the commit with a DlqError that says the session closed, not a TypeError', async () => {
    const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
    const double = new DlqKafkaDouble();
    for (const topic of [consumer.mainTopic, consumer.dlq, consumer.dlqAudit, ...consumer.tiers]) double.createTopic(topic.name, topic.partitions);
    double.append(consumer.dlq.name, 0, { key: 'order-1', value: 'v', headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: '7', [HEADERS.errorClass]: 'DownstreamTimeout' } });
    const kafka = double.kafka();
    const session = await DlqSession.open(kafka, consumer);
    await session.hold();
    const committing = session.commit(session.prepare(session.records));
    const closing = session.close();
    const refusal = await committing.then(() => undefined, (error: unknown) => error);
    await closing;

    expect(double.commits.get(consumer.groups.replay)?.size ?? 0).toBe(0);
    expect(refusal).toBeDefined();
    expect(refusal).not.toBeInstanceOf(TypeError);
    expect((refusal as Error).name).toBe('DlqError');
  });
});
