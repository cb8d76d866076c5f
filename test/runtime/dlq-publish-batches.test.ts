import { PUBLISH_PART_BYTES, publishBatches } from '../../src/dlq/replay';
import type { DlqRecord } from '../../src/dlq/session';

/** A DLQ record of `bytes` value bytes, going to `target` (undefined: the producer picks). */
const record = (offset: number, target: number | undefined, bytes = 10): DlqRecord & { target?: number } => ({
  id: `0:${offset}`,
  partition: 0,
  offset: BigInt(offset),
  timestamp: 0,
  key: Buffer.from('k'),
  value: Buffer.alloc(bytes),
  headers: {},
  decoded: {},
  replayCount: 0,
  target,
});
const batchOf = (r: DlqRecord) => {
  const target = (r as { target?: number }).target;
  return target === undefined ? undefined : `tier:${target}`;
};
const ids = (batches: DlqRecord[][]) => batches.map((b) => b.map((r) => r.id));

describe('the batches a replay part is published in', () => {
  it('hold one target partition each, in log order within each', () => {
    expect(ids(publishBatches([record(0, 1), record(1, 2), record(2, 1), record(3, 2)], batchOf))).toEqual([['0:0', '0:2'], ['0:1', '0:3']]);
  });

  it('send a record whose partition the producer picks after every record read before it, and before every one read after', () => {
    // 0:1 may land in partition 1 by its key's hash: it must not be overtaken by 0:2, read after it.
    expect(ids(publishBatches([record(0, 1), record(1, undefined), record(2, 1)], batchOf))).toEqual([['0:0'], ['0:1'], ['0:2']]);
  });

  it('stay under a topic\'s default max.message.bytes, one record alone always making a batch', () => {
    const big = Math.floor(PUBLISH_PART_BYTES / 2);
    expect(ids(publishBatches([record(0, 1, big), record(1, 1, big), record(2, 1, 3 * PUBLISH_PART_BYTES), record(3, 1)], batchOf))).toEqual([['0:0'], ['0:1'], ['0:2'], ['0:3']]);
  });
});
