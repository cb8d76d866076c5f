/**
 * Review h139: `krt dlq replay` run as a principal that may not join the replay group (the
 * monitor principal, say) prints its plan, then waits 60 s and ends with "could not join the
 * replay group billing-order-confirmed.dlq-replay within 60s": nothing says the broker refused
 * it (GROUP_AUTHORIZATION_FAILED), nor which principal to use.
 *
 * Seen on the test broker:
 *   KAFKA_SASL_USERNAME=orders-monitor ... krt dlq replay billing-order-confirmed --all --rate 50
 *   -> "replaying 2 of 2 ..." and both ids listed, then 61 s later
 *      "krt: could not join the replay group billing-order-confirmed.dlq-replay within 60s", exit 1.
 *
 * Code at fault: src/dlq/session.ts DlqSession.member(): kafkajs's run() resolves before the
 * member joins, and a join the broker refuses arrives as the consumer's CRASH event, which
 * member() does not listen to; only its 60 s timer ends the wait.
 * Fixed: reject on CRASH too (client.on(client.events.CRASH, ...)), with explainKafkaError's
 * advice (run krt dlq as the consumer's replay principal).
 */
import { DlqSession } from '../../src/dlq/session';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from '../runtime/dlq-kafka-double';
import type { Kafka } from 'kafkajs';

it('a replay group join the broker refuses ends the command at once, saying why', async () => {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  const kafka = double.kafka();
  const real = kafka.consumer.bind(kafka);
  // As kafkajs does when the ACLs refuse the group: run() resolves, then the runner crashes.
  (kafka as { consumer: Kafka['consumer'] }).consumer = ((options: { groupId: string }) => {
    if (options.groupId !== consumer.groups.replay) return real(options as never);
    const listeners = new Map<string, ((e: unknown) => void)[]>();
    const refused = Object.assign(new Error('Not authorized to access group: Group authorization failed'), { name: 'KafkaJSProtocolError', type: 'GROUP_AUTHORIZATION_FAILED', code: 30, retriable: false });
    return {
      events: { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash', COMMIT_OFFSETS: 'consumer.commit_offsets' },
      connect: async () => {},
      subscribe: async () => {},
      on: (event: string, listener: (e: unknown) => void) => (listeners.set(event, [...(listeners.get(event) ?? []), listener]), () => {}),
      run: async () => {
        setTimeout(() => listeners.get('consumer.crash')?.forEach((l) => l({ payload: { error: refused, groupId: options.groupId, restart: false } })), 10);
      },
      pause: () => {},
      resume: () => {},
      stop: async () => {},
      disconnect: async () => {},
      commitOffsets: async () => {},
    } as never;
  }) as Kafka['consumer'];
  const session = await DlqSession.open(kafka, consumer, 5_000);
  const started = Date.now();
  const outcome = await (session as unknown as { member(): Promise<unknown> })
    .member()
    .then(() => 'joined', (error: Error) => error.message)
    .finally(() => session.close());
  expect({ fast: Date.now() - started < 2_000, outcome }).toEqual({ fast: true, outcome: expect.stringMatching(/authori[sz]/i) });
}, 15_000);
