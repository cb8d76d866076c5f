import type { PortMessage } from '../../src/runtime/port';
import { isAnotherRecordAt, isSameRecord, recordIdentity } from '../../src/runtime/record-identity';

const record = (offset: string, value: string | null, key: string | null = 'k', timestamp = '1000'): PortMessage => ({
  offset,
  timestamp,
  key: key === null ? null : Buffer.from(key),
  value: value === null ? null : Buffer.from(value),
});

describe('records told apart by identity, not by offset alone', () => {
  it('takes the same record read twice (other objects, same offset, timestamp, key and value) for one', () => {
    expect(isSameRecord(record('3', 'a'), record('3', 'a'))).toBe(true);
    expect(isAnotherRecordAt(record('3', 'a'), record('3', 'a'))).toBe(false);
  });

  it('tells another record at the same offset (a log made again) by its value, key, timestamp, or a null value', () => {
    for (const other of [record('3', 'b'), record('3', 'a', 'j'), record('3', 'a', 'k', '2000'), record('3', null), record('3', 'a', null)]) {
      expect(isSameRecord(record('3', 'a'), other)).toBe(false);
      expect(isAnotherRecordAt(record('3', 'a'), other)).toBe(true);
    }
  });

  it('never calls records at two offsets the same, nor another record at the same offset', () => {
    expect(isSameRecord(record('3', 'a'), record('4', 'a'))).toBe(false);
    expect(isAnotherRecordAt(record('3', 'a'), record('4', 'b'))).toBe(false);
  });

  it('gives a null value an identity of its own, apart from an empty one', () => {
    expect(recordIdentity(record('3', null))).not.toBe(recordIdentity(record('3', '')));
  });
});
