import { groupReaderAdmin } from '../../src/runtime/adapters/confluent-group-reader';
import type { ReaderConsumerLike } from '../../src/runtime/adapters/confluent-group-reader';
import { readParkState } from '../../src/runtime/park-state';

/**
 * Review 49, change 4 (confluent-group-reader.ts: the refusal of a cut legacy state). Fixed: cutLegacyStateThatHolds decides on the raw answer.
 *
 * Scenario: a group that ran an earlier release on confluentPort itself, between commit 25dbbe8
 * (park states written with a NUL on every client) and fbd8eb5 (format krt-parked/2). Its state
 * `krt-parked/1 +6 AAAAAAAAAAAA@5:6` was written as the runtime's text plus its NUL, and the
 * Confluent client added its own NUL: stored `...@5:6\0\0`. The native committed() cuts one byte
 * (`size() - 1`) and answers `...@5:6\0`: the NUL left over proves the state came back whole
 * (a state cut short, written by kafkajs with no NUL, never ends with one).
 *
 * Seen: committedOffsetOf() strips the NULs first, and the refusal then takes this whole state
 * for a cut one: LegacyParkStateError on every try; the partition's records wait until the
 * operator moves the group to kafkajs, though nothing about the state is uncertain.
 * Expected: the state read whole is given as it is (it parses as the state stored).
 *
 * Code at fault: confluent-group-reader.ts committedOffsetOf (`metadata: found.metadata?.replace(/\0+$/, '')`)
 * runs before refusingLegacyStatesThatHold, which can then no longer tell whole from cut.
 * Class: liveness (a partition stalled on upgrade in place; no record is lost or reordered).
 * Suggested fix: refuse a legacy state that holds only when the native metadata did not end
 * with a NUL (decide on the raw answer, strip afterwards).
 */
describe('review 49: a park state of an earlier release on the Confluent client', () => {
  it('is given whole when the native answer shows it whole (a NUL left after the cut)', async () => {
    const stored = 'krt-parked/1 +6 AAAAAAAAAAAA@5:6';
    const reader: ReaderConsumerLike = {
      _getInternalClient: () => ({
        // As rd_kafka_committed answers `${stored}\0\0` through ToV8Array's size() - 1.
        committed: (_partitions, _timeoutMs, callback) => void setImmediate(() => callback(null, [{ topic: 'orders', partition: 0, offset: 5, metadata: `${stored}\0` }])),
      }),
      connect: async () => undefined,
      disconnect: async () => undefined,
      dependentAdmin: () => ({
        connect: async () => undefined,
        disconnect: async () => undefined,
        fetchOffsets: async () => [],
        fetchTopicOffsets: async () => [],
      }),
    };
    // The stored text is a valid earlier-release state at offset 5 (position 11, key held at 6, its record at 5 parked).
    expect(readParkState(5n, stored).legacy).toBe(true);
    expect(readParkState(5n, stored).state.held.size).toBe(1);
    await expect(groupReaderAdmin(reader, 'g').committedOf!('orders', [0])).resolves.toEqual([{ partition: 0, offset: '5', metadata: stored }]);
  });
});
