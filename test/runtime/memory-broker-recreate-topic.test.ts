import { BrokerRefusedError, MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/** A member of `groupId` reading `topic`, noting the values it is given and its rebalances. */
async function reader(broker: MemoryBroker, groupId: string, topic: string) {
  const seen: string[] = [];
  let rebalances = 0;
  const consumer = broker.port().consumer(groupId);
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  consumer.onRebalance(() => rebalances++);
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
  return { seen, rebalances: () => rebalances };
}

describe('the in-memory broker: a topic deleted and created again (recreateTopic)', () => {
  const write = (broker: MemoryBroker, topic: string, value: string, partition = 0) => broker.append(topic, { key: null, value: Buffer.from(value), partition });

  it('starts every partition\'s log over at offset 0 and keeps the partition count', () => {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.createTopic('orders', 3);
    for (const partition of [0, 1, 2]) write(broker, 'orders', `old-${partition}`, partition);
    broker.recreateTopic('orders');
    expect(broker.partitionsOf('orders')).toBe(3);
    expect([0, 1, 2].map((partition) => broker.records('orders', partition).length)).toEqual([0, 0, 0]);
    expect(write(broker, 'orders', 'new-0', 2)).toBe(0);
  });

  it('drops every group\'s commits of the topic and keeps their commits of other topics', () => {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.createTopic('orders', 2);
    broker.createTopic('payments', 1);
    broker.commit('a', [{ topic: 'orders', partition: 0, offset: '5' }, { topic: 'orders', partition: 1, offset: '7' }, { topic: 'payments', partition: 0, offset: '3' }]);
    broker.commit('b', [{ topic: 'orders', partition: 1, offset: '2' }]);
    broker.recreateTopic('orders');
    expect([broker.committedOffset('a', 'orders', 0), broker.committedOffset('a', 'orders', 1), broker.committedOffset('b', 'orders', 1)]).toEqual([undefined, undefined, undefined]);
    expect(broker.committedOffset('a', 'payments', 0)).toBe(3);
  });

  it('rebalances the groups reading the topic, which read the new log from offset 0, and no other group', async () => {
    const clock = new VirtualClock(0);
    const broker = new MemoryBroker(clock);
    broker.createTopic('orders', 1);
    broker.createTopic('payments', 1);
    const orders = await reader(broker, 'orders-reader', 'orders');
    const payments = await reader(broker, 'payments-reader', 'payments');
    for (const value of ['old-0', 'old-1', 'old-2']) write(broker, 'orders', value);
    await broker.run();
    expect(orders.seen).toEqual(['old-0', 'old-1', 'old-2']);

    broker.recreateTopic('orders');
    write(broker, 'orders', 'new-0');
    await broker.run();
    expect(orders.rebalances()).toBe(1);
    expect(payments.rebalances()).toBe(0);
    // Read from the new log's start, not from where the member stood in the old one (offset 3).
    expect(orders.seen).toEqual(['old-0', 'old-1', 'old-2', 'new-0']);
  });

  it('refuses a topic it does not host', () => {
    const broker = new MemoryBroker(new VirtualClock(0));
    expect(() => broker.recreateTopic('nowhere')).toThrow(BrokerRefusedError);
  });
});
