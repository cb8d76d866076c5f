import { HEADERS } from '../../src/naming/headers';
import { createKeyParking } from '../../src/runtime/key-parking';
import { DEFAULT_PARK_STATE_BUDGET } from '../../src/runtime/park-state';
import type { OffsetCommit } from '../../src/runtime/port';
import type { HandleOutcome } from '../../src/runtime/record-handler';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * Attack on park-by-key's budget (offset.metadata.max.bytes, 4096 by default). A main
 * record is taken only while the state has room (overBudget), but a tier record that is
 * not its key's current retry (replayed from the DLQ, or from before a lost state) takes a
 * hold when it fails into a later tier, with no budget check (src/runtime/key-parking.ts,
 * onTierRecord's `if (!current)` branch, and drain's turn records). Enough of them and the
 * state the runtime commits is larger than the broker accepts: the commit is refused
 * (OFFSET_METADATA_TOO_LARGE), the state is dropped and read again, the tier record runs
 * again and is published again into the next tier, and the commit is refused again: the
 * partition never moves and every turn adds a duplicate to the next tier.
 */
describe('park-by-key state past the metadata budget', () => {
  function setup(committed: OffsetCommit) {
    const broker = new MemoryBroker(new VirtualClock(0));
    broker.createTopic('orders', 1);
    broker.commit('g', [committed]);
    const port = broker.port().consumer('g');
    const metadataSizes: number[] = [];
    // Every metadata the runtime sends, in bytes (the broker refuses more than offset.metadata.max.bytes).
    const commitOffsets = port.commitOffsets.bind(port);
    port.commitOffsets = async (offsets: OffsetCommit[]) => {
      for (const o of offsets) if (o.metadata !== undefined) metadataSizes.push(Buffer.byteLength(o.metadata));
      return commitOffsets(offsets);
    };
    const parking = createKeyParking({
      mainTopic: 'orders',
      tierTopics: [],
      consumer: () => port,
      handle: async () => 'success',
      emit: () => {},
      budgetBytes: DEFAULT_PARK_STATE_BUDGET,
      holdExpiryMs: 3_600_000,
      now: () => 0,
      setTimer: () => () => {},
      commitOffsetFor: (r) => ({ topic: r.topic, partition: r.partition, offset: String(Number(r.message.offset) + 1) }),
      retryLater: () => {},
    });
    return { parking, metadataSizes };
  }

  /** A tier record of key `key` (main offset `original`) that fails again, into the next tier. */
  const failingTierRecord = (
    key: string,
    original: number,
    tierOffset: number,
    replayed: boolean,
  ): [ConsumedRecord, () => Promise<{ outcome: HandleOutcome; commit: { topic: string; partition: number; offset: string } }>] => [
    {
      topic: 'orders.retry.1m',
      partition: 0,
      message: {
        key: Buffer.from(key),
        value: null,
        offset: String(tierOffset),
        timestamp: '0',
        headers: { [HEADERS.originalOffset]: String(original), ...(replayed ? { [HEADERS.replayedFromDlq]: `orders.dlq/0:${original}` } : {}) },
      },
    },
    async () => ({ outcome: 'tier', commit: { topic: 'orders.retry.1m', partition: 0, offset: String(tierOffset + 1) } }),
  ];

  // Defect: holds taken by replayed records are not counted against the budget.
  it('an operator replays 400 DLQ records during an outage: the state it commits stays within the budget', async () => {
    const s = setup({ topic: 'orders', partition: 0, offset: '5000', metadata: 'krt-parked/1 +0' });
    for (let i = 0; i < 400; i++) await s.parking.onTierRecord(...failingTierRecord(`order-${i}`, i, i, true));
    expect(Math.max(...s.metadataSizes)).toBeLessThanOrEqual(DEFAULT_PARK_STATE_BUDGET);
  });

  // Defect: holds taken by tier records from before a lost state are not counted against the budget.
  it('400 retries in flight when the state was lost fail again: the state it commits stays within the budget', async () => {
    const s = setup({ topic: 'orders', partition: 0, offset: '5000' }); // an offset reset: no metadata
    for (let i = 0; i < 400; i++) await s.parking.onTierRecord(...failingTierRecord(`order-${i}`, i, i, false));
    expect(Math.max(...s.metadataSizes)).toBeLessThanOrEqual(DEFAULT_PARK_STATE_BUDGET);
  });
});
