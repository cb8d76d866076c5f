import { FaultyPort } from '../../src/simulate/faulty-port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * The Confluent client runs a seek later, in its own loop; when the partition is no longer
 * assigned by then (a rebalance under way), it keeps the seek and applies it at the partition's
 * next assignment, in place of the group's commit (`#pendingSeeks`, `#assignAsPerSeekedOffsets`).
 * The fault world's `keptUntilAssigned` seek models that; these say the model does what it says.
 */
describe('a seek kept until its partition is assigned again (the fault world)', () => {
  async function member(keptUntilAssigned: boolean) {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.createTopic('orders', 1);
    for (const value of ['0', '1', '2', '3']) broker.append('orders', { key: null, value: Buffer.from(value), partition: 0 });
    const faulty = new FaultyPort(broker.port(), {
      faults: [{ operation: 'seek', at: 0, times: 1, dropped: true, keptUntilAssigned }],
      onRebalance: () => broker.rebalance('g'),
    });
    const seen: string[] = [];
    const consumer = faulty.port().consumer('g');
    await consumer.connect();
    await consumer.subscribe({ topics: ['orders'] });
    let sought = false;
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value!.toString());
        if (message.value!.toString() === '0' && !sought) {
          sought = true;
          consumer.seek({ topic: 'orders', partition: 0, offset: '2' });
        }
      },
    });
    await broker.run();
    return { seen, rebalances: faulty.rebalances };
  }

  it('is not applied now, and the next assignment reads from it, not from the group\'s commit (none here: the earliest)', async () => {
    const { seen, rebalances } = await member(true);
    expect(rebalances).toBe(1);
    // 0 read; the seek is kept, the group rebalances, and the partition is read from 2, not from 0.
    expect(seen).toEqual(['0', '2', '3']);
  });

  it('dropped alone, it is never applied and brings no rebalance', async () => {
    const { seen, rebalances } = await member(false);
    expect(rebalances).toBe(0);
    expect(seen).toEqual(['0', '1', '2', '3']);
  });
});
