import { pageScan } from '../src/console/scan';
import { DlqSession } from '../src/dlq/session';
import type { ConsumerModel } from '../src/model/types';
import { HEADERS } from '../src/naming/headers';
import { aConsumer, aTopology, compile } from './helpers/specs';
import { DlqKafkaDouble } from './runtime/dlq-kafka-double';

function dlqOf(records: number, value: (i: number) => string = (i) => `value-${i}`): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m'] })] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  for (let i = 0; i < records; i++) append(double, consumer, i, value(i));
  return { consumer, double };
}

function append(double: DlqKafkaDouble, consumer: ConsumerModel, i: number, value: string): void {
  double.append(consumer.dlq.name, 0, { key: `order-${i}`, value, headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.errorClass]: 'OrderValidationError', [HEADERS.errorMessage]: `order ${i}` } });
}

async function page(double: DlqKafkaDouble, consumer: ConsumerModel, after: string | undefined, size = 5) {
  const [partition, offset] = after?.split(':') ?? [];
  const scan = pageScan({}, after === undefined ? undefined : { partition: Number(partition), offset: BigInt(offset!) }, size);
  const session = await DlqSession.open(double.kafka(), consumer, 10_000, scan.keep, scan.scope);
  await session.close();
  const view = scan.view(session.records);
  return { ids: view.shown.map((r) => r.id), next: view.next, held: session.records };
}

describe('a DLQ session that reads a page, not the DLQ', () => {
  it('goes on from the log start when retention passed the cursor between two pages', async () => {
    const { consumer, double } = dlqOf(100);
    expect((await page(double, consumer, undefined)).ids).toEqual(['0:0', '0:1', '0:2', '0:3', '0:4']);
    double.deleteBelow(consumer.dlq.name, 0, 40n);
    expect(await page(double, consumer, '0:4')).toMatchObject({ ids: ['0:40', '0:41', '0:42', '0:43', '0:44'], next: '0:44' });
  });

  it('goes on from its cursor when the DLQ grew between two pages, and ends where the DLQ ends', async () => {
    const { consumer, double } = dlqOf(7);
    const first = await page(double, consumer, undefined);
    expect(first.next).toBe('0:4');
    for (let i = 7; i < 9; i++) append(double, consumer, i, `value-${i}`);
    expect(await page(double, consumer, first.next)).toEqual(expect.objectContaining({ ids: ['0:5', '0:6', '0:7', '0:8'], next: undefined }));
  });

  it('holds a preview of each record it lists: a value of 10 MB is held as 1 KiB, its headers decoded whole', async () => {
    const { consumer, double } = dlqOf(3, () => 'x'.repeat(10 * 2 ** 20));
    const { held } = await page(double, consumer, undefined);
    expect(held.map((r) => r.value!.length)).toEqual([1024, 1024, 1024]);
    expect(held[0]!.decoded).toMatchObject({ errorClass: 'OrderValidationError', errorMessage: 'order 0' });
  });

  it('waits for the writer after a batch while other partitions are still being read, and sees each record once', async () => {
    const { consumer, double } = dlqOf(50);
    for (let i = 0; i < 20; i++) double.append(consumer.dlq.name, 1, { key: `k${i}`, value: 'v', headers: { [HEADERS.errorClass]: 'E' } });
    let drains = 0;
    const seen = new Map<number, number>();
    const session = await DlqSession.open(double.kafka(), consumer, 10_000, (r) => (seen.set(r.partition, (seen.get(r.partition) ?? 0) + 1), false), {
      drain: async () => void drains++,
      // Partition 0 is enough once read to its end: it is paused, never fetched again.
      enough: (p, position) => p === 0 && position >= 50n,
    });
    await session.close();
    expect({ waited: drains > 0, kept: session.records.length, seen: Object.fromEntries(seen) }).toEqual({ waited: true, kept: 0, seen: { 0: 50, 1: 20 } });
    expect(drains).toBe(1);
  });

  it('lists no record of a partition past the one after which the caller has enough, though the fetch held more', async () => {
    const { consumer, double } = dlqOf(100);
    const listed: string[] = [];
    const session = await DlqSession.open(double.kafka(), consumer, 10_000, (r) => (listed.push(r.id), true), { enough: (_p, position) => position > 2n });
    await session.close();
    expect({ listed, held: session.records.map((r) => r.id) }).toEqual({ listed: ['0:0', '0:1', '0:2'], held: ['0:0', '0:1', '0:2'] });
  });
});
