import { Registry } from 'prom-client';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import type { CommitPolicy } from '../../src/runtime/offset-committer';
import type { CommittedOffset, ConsumerPort, KafkaPort, OffsetCommit } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker, type ThrowReaction } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError, valueOf } from './harness';

/**
 * What a member's consumers do in place of the broker's `commitOffsets` and `committed()`:
 * each hook is handed the broker's own call, to refuse, delay or hang it, or pass it on.
 */
export interface MemberHooks {
  commitOffsets?: (offsets: OffsetCommit[], commit: ConsumerPort['commitOffsets'], groupId: string) => Promise<void>;
  committed?: (topic: string, partitions: number[], read: ConsumerPort['committed'], groupId: string) => Promise<CommittedOffset[]>;
}

/** The broker's port, its consumers' commits and commit reads going through the hooks. */
export function memberPort(broker: MemoryBroker, hooks: MemberHooks = {}): KafkaPort {
  const port = broker.port();
  return {
    producer: () => port.producer(),
    consumer: (groupId, options) => {
      const consumer = port.consumer(groupId, options);
      const { commitOffsets, committed } = hooks;
      if (commitOffsets) {
        const commit = consumer.commitOffsets.bind(consumer);
        consumer.commitOffsets = (offsets) => commitOffsets(offsets, commit, groupId);
      }
      if (committed) {
        const read = consumer.committed.bind(consumer);
        consumer.committed = (topic, partitions) => committed(topic, partitions, read, groupId);
      }
      return consumer;
    },
  };
}

/** Every commit refused with the error `refusal` makes. */
export const refusedCommits = (refusal: () => Error): MemberHooks['commitOffsets'] => async () => {
  throw refusal();
};

/** kafkajs's refusal while the group's coordinator is gone (an outage): retriable. */
export const coordinatorNotAvailable = (): Error =>
  Object.assign(new Error('The coordinator is not available'), { name: 'KafkaJSProtocolError', type: 'COORDINATOR_NOT_AVAILABLE', code: 15, retriable: true });

/** A member's record handler, handed the list of what ran to note what it ran. */
export type MemberHandler = (record: ConsumedRecord, ran: string[]) => Promise<void> | void;

/** Notes each record's value. */
export const notesValue: MemberHandler = (record, ran) => void ran.push(valueOf(record));

/** Notes `main:` or `tier:` and the value; a main record whose value starts with `fail` fails (a 503), off to the first tier. */
export const notesWhereFailingOnMain =
  (mainTopic: string): MemberHandler =>
  (record, ran) => {
    ran.push(`${record.topic === mainTopic ? 'main' : 'tier'}:${valueOf(record)}`);
    if (record.topic === mainTopic && valueOf(record).startsWith('fail')) throw httpError(503);
  };

/** Notes the values of main records only; one whose value starts with `fail` fails (a 503). */
export const notesMainFailing =
  (mainTopic: string): MemberHandler =>
  (record, ran) => {
    if (record.topic !== mainTopic) return;
    ran.push(valueOf(record));
    if (valueOf(record).startsWith('fail')) throw httpError(503);
  };

export interface MemberOptions {
  consumer?: ConsumerDescriptor;
  commit?: Partial<CommitPolicy>;
  hooks?: MemberHooks;
  handler?: MemberHandler;
  throwReaction?: ThrowReaction;
}

/**
 * This member of the consumer's groups, a retrying consumer on the in-memory broker (every
 * topic of one partition) with a virtual clock, and what it ran. The groups' other members
 * are played by the test: `broker.commit`, `broker.rebalance`, `broker.recreateTopic`.
 */
export function groupMember(options: MemberOptions = {}) {
  const consumer = options.consumer ?? billingDescriptor();
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  if (options.throwReaction) broker.throwReaction = options.throwReaction;
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  const ran: string[] = [];
  const handler = options.handler ?? notesValue;
  const retrying = createRetryingConsumer(consumer, {
    kafka: memberPort(broker, options.hooks),
    clock,
    registry: new Registry(),
    random: () => 0.5,
    ...(options.commit ? { commit: options.commit } : {}),
    handler: async (record) => handler(record, ran),
  });
  /** Writes a record to main partition 0, its key its value unless named. */
  const produce = (value: string, key = value) => broker.append(consumer.mainTopic, { key: Buffer.from(key), value: Buffer.from(value), partition: 0 });
  /** The group's commit of main partition 0. */
  const mainCommit = () => broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0);
  return { consumer, clock, broker, ran, retrying, produce, mainCommit };
}
