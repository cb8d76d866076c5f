import { lingeringReaders } from '../../src/dlq/reader-pool';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { dlqReaderGroupName } from '../../src/naming';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { eventually } from '../helpers/eventually';
import { DlqKafkaDouble } from './dlq-kafka-double';

function dlq(count: number): { consumer: ConsumerModel; double: DlqKafkaDouble; joins: () => number } {
  const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  for (let i = 0; i < count; i++) {
    double.append(consumer.dlq.name, i % consumer.dlq.partitions, { key: `order-${i}`, value: `value-${i}`, headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.errorClass]: 'DownstreamTimeout' } });
  }
  let joins = 0;
  double.fault = (operation) => {
    if (operation.kind === 'join' && operation.group === dlqReaderGroupName(consumer.groups.replay)) joins++;
  };
  return { consumer, double, joins: () => joins };
}

const ids = (session: DlqSession) => session.records.map((r) => r.id);
const readerMembers = (double: DlqKafkaDouble, consumer: ConsumerModel) => [...(double.members.get(dlqReaderGroupName(consumer.groups.replay))?.keys() ?? [])];

describe('DLQ reads through members that linger between reads (the console)', () => {
  it('read after read joins the reader group once, and each read lists every unhandled record', async () => {
    const { consumer, double, joins } = dlq(6);
    // A read of its own, as `krt dlq inspect` reads: it joins, and leaves the group empty.
    const all = ids(await DlqSession.open(double.kafka(), consumer));
    const readers = lingeringReaders(double.kafka());
    const listed: string[][] = [];
    for (let read = 0; read < 3; read++) {
      const session = await DlqSession.open(double.kafka(), consumer, 10_000, undefined, undefined, readers);
      listed.push(ids(session));
      await session.close();
    }
    await readers.close();
    expect({ all: all.length, joinsOfTheLingeringReads: joins() - 1, listed }).toEqual({ all: 6, joinsOfTheLingeringReads: 1, listed: [all, all, all] });
  });

  it('a read that starts before the previous ends gets a member of its own', async () => {
    const { consumer, double } = dlq(4);
    const readers = lingeringReaders(double.kafka());
    let second: Promise<DlqSession> | undefined;
    const first = await DlqSession.open(double.kafka(), consumer, 10_000, undefined, {
      drain: async () => {
        second ??= DlqSession.open(double.kafka(), consumer, 10_000, undefined, undefined, readers);
        await second;
      },
    }, readers);
    const members = readerMembers(double, consumer).length;
    await readers.close();
    const every = ['0:0', '1:0', '2:0', '3:0'];
    expect({ first: ids(first), second: ids(await second!), members }).toEqual({ first: every, second: every, members: 2 });
  });

  it('a member no read needed for the idle time leaves the reader group', async () => {
    const { consumer, double } = dlq(2);
    const readers = lingeringReaders(double.kafka(), 20);
    await DlqSession.open(double.kafka(), consumer, 10_000, undefined, undefined, readers);
    expect(readerMembers(double, consumer)).toHaveLength(1);
    await eventually('the idle member leaves', () => (readerMembers(double, consumer).length === 0 ? true : undefined), 5_000);
  });

  it('closing the readers leaves the reader group at once', async () => {
    const { consumer, double } = dlq(2);
    const readers = lingeringReaders(double.kafka());
    await DlqSession.open(double.kafka(), consumer, 10_000, undefined, undefined, readers);
    await readers.close();
    expect(readerMembers(double, consumer)).toEqual([]);
  });

  it('close() leaves with a member serving a read too, and that read ends with why', async () => {
    const { consumer, double } = dlq(4);
    const readers = lingeringReaders(double.kafka());
    let closing: Promise<void> | undefined;
    // The console stops while a count reads: the read is under way when close() comes.
    const read = DlqSession.open(double.kafka(), consumer, 10_000, undefined, {
      drain: async () => {
        closing ??= readers.close();
        await closing;
      },
    }, readers).then(
      () => 'read to its end',
      (error: Error) => error.name,
    );
    const outcome = await read;
    await closing;
    expect({ outcome, members: readerMembers(double, consumer) }).toEqual({ outcome: 'DlqReaderClosed', members: [] });
  });
});
