import { FinishedOffsets } from '../../src/runtime/finished-offsets';
import type { ConsumedRecord } from '../../src/runtime/router';

const TIER = 'orders.confirmed.retry.1m';

const tierRecord = (offset: number, value: string): ConsumedRecord => ({
  topic: TIER,
  partition: 0,
  message: { key: null, value: Buffer.from(value), offset: String(offset), timestamp: '0', headers: {} },
});

/**
 * The tier path's side of the recreated-topic-in-the-window scenario: this member finished the
 * old tier log's records 0-103 and 104 with its commit at 100 acknowledged, then the group
 * rebalanced; `first` is the new tier log's record 101, the partition's first record after it.
 */
export function tierLogFinishedPastAcknowledged(): { finished: FinishedOffsets; first: ConsumedRecord } {
  const finished = new FinishedOffsets();
  for (let i = 0; i < 104; i++) finished.has(tierRecord(i, `old-${i}`), i === 0 ? undefined : 100n);
  finished.add({ topic: TIER, partition: 0, offset: '104' });
  finished.rebalanced();
  return { finished, first: tierRecord(101, 'new-101') };
}
