import type { EachMessagePayload } from '../../src/runtime/port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

async function firstPayload(broker: MemoryBroker, topicIds: 'fetch' | 'none'): Promise<EachMessagePayload> {
  const consumer = broker.port({ topicIds }).consumer(`g-${topicIds}-${Math.random()}`);
  const seen: EachMessagePayload[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: ['t'], fromBeginning: true });
  await consumer.run({ eachMessage: async (p) => void seen.push(p) });
  await broker.run({ stopWhen: () => seen.length > 0 });
  await consumer.disconnect();
  return seen[0]!;
}

describe('the in-memory broker and topic ids', () => {
  it('gives a topic created again another id', () => {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.createTopic('t', 1);
    const first = broker.topicIdOf('t');
    broker.recreateTopic('t');
    expect(first).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(broker.topicIdOf('t')).not.toBe(first);
  });

  it('names the id on each record only for a port that reads ids, as kafkajs names none', async () => {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.createTopic('t', 1);
    broker.append('t', { key: null, value: Buffer.from('x'), partition: 0 });
    expect((await firstPayload(broker, 'fetch')).topicId).toBe(broker.topicIdOf('t'));
    expect((await firstPayload(broker, 'none')).topicId).toBeUndefined();
  });
});
