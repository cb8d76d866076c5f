import { ParkingBudget } from '../../src/runtime/parking-budget';
import { emptyParkState } from '../../src/runtime/park-state';
import type { PartitionParking } from '../../src/runtime/partition-parking';
import { decodeTierCommit } from '../../src/runtime/tier-commit-metadata';
import { withTierMetadata } from '../../src/runtime/tier-position';
import { createTierTurns } from '../../src/runtime/tier-turns';

/** A main partition's parking with its state's id and position, nothing held, no tier read yet. */
function parking(id: string, position: bigint): PartitionParking {
  return { state: { ...emptyParkState(position), id }, records: new Map(), heldSince: new Map(), turns: createTierTurns(), tierHandled: new Map(), tierCommitted: new Map(), tierRead: new Map(), soughtSinceTaken: false };
}

describe('a park-by-key tier commit', () => {
  it('carries the state\'s id and the main partition\'s committed offset beside its offset, read back at that offset', () => {
    const budget = new ParkingBudget(4_096, 'orders', () => undefined);
    const commit = withTierMetadata(parking('AbC-_123', 40n), { topic: 'orders.retry.1m', partition: 0, offset: '7', handledBelow: 7n }, budget);
    expect(commit.offset).toBe('7');
    expect(commit.metadata).toBeDefined();
    const read = decodeTierCommit(7n, commit.metadata!);
    expect({ id: read.id, mainCommitted: read.mainCommitted }).toEqual({ id: 'AbC-_123', mainCommitted: 40n });
  });
});
