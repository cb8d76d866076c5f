import { MemoryBroker } from '../../src/simulate/memory-broker';
import type { ThrowReaction } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * Found by the fault property (s28, seed 8818): a delivery that failed after a rebalance had
 * already sent its partition back to the commit moved the partition, with the Confluent
 * client's reaction, to the failed record: the records between the commit and it were never
 * read again (a tier record that waited its turn was lost). A real client ends a call before
 * it gives up its partitions, so its seek back comes before the rebalance, never after it.
 */
describe('the in-memory broker: a call that throws after a rebalance it straddled', () => {
  async function member(reaction: Exclude<ThrowReaction, 'fail'>) {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.throwReaction = reaction;
    broker.createTopic('orders', 1);
    for (const value of ['0', '1', '2']) broker.append('orders', { key: null, value: Buffer.from(value), partition: 0 });
    const seen: string[] = [];
    const consumer = broker.port().consumer('g');
    await consumer.connect();
    await consumer.subscribe({ topics: ['orders'] });
    let thrown = false;
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value!.toString());
        if (message.value!.toString() !== '2' || thrown) return;
        thrown = true;
        broker.rebalance('g'); // the group rebalances while the call runs; nothing was committed
        throw new Error('the call fails after the rebalance');
      },
    });
    await broker.run();
    return seen;
  }

  it.each(['confluent', 'kafkajs'] as const)('reads the partition again from its commit, not from the failed record (%s)', async (reaction) => {
    expect(await member(reaction)).toEqual(['0', '1', '2', '0', '1', '2']);
  });
});
