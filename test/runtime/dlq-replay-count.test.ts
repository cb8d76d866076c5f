import { HEADERS, REPLAY_COUNT_HEADER } from '../../src/naming/headers';
import { replayCountOf } from '../../src/dlq/replay-count';
import { createRouter } from '../../src/runtime/router';
import type { OutgoingMessage } from '../../src/runtime/port';
import { billingDescriptor } from './descriptor';

describe('the replay count of a record that keeps coming back', () => {
  it('reaches the DLQ unchanged when a replayed record fails again, so inspect can show it', async () => {
    const sent: OutgoingMessage[] = [];
    const producer = { connect: async () => {}, disconnect: async () => {}, send: async ({ messages }: { messages: OutgoingMessage[] }) => void sent.push(...messages) };
    const router = createRouter(billingDescriptor(), { producer, clock: { now: () => 5_000, setTimer: () => () => {}, sleep: async () => {} } });
    const replayed = {
      topic: 'orders.confirmed',
      partition: 3,
      message: { key: Buffer.from('order-9'), value: Buffer.from('{}'), headers: { [HEADERS.attempt]: '1', [HEADERS.replayedFromDlq]: 'orders.confirmed.dlq/3:17', [REPLAY_COUNT_HEADER]: '2' }, offset: '90', timestamp: '4000' },
    };
    const error = new TypeError('still broken');
    const destination = router.decide(replayed, error, 1);
    expect(destination.kind).toBe('dlq');
    await router.publish(replayed, error, destination as Exclude<typeof destination, { kind: 'in-place' }>);
    expect(replayCountOf(sent[0]!.headers as Record<string, string>)).toBe(2);
  });

  it('reads garbage or a missing header as never replayed', () => {
    for (const value of [undefined, '', 'many', '-1', '1e9', '99999999999']) expect(replayCountOf(value === undefined ? {} : { [REPLAY_COUNT_HEADER]: value })).toBe(0);
    expect(replayCountOf({ [REPLAY_COUNT_HEADER]: Buffer.from('3') })).toBe(3);
  });
});
