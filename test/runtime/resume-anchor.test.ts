import type { PortMessage } from '../../src/runtime/port';
import { judgeReadAtAnchor, judgeRewind } from '../../src/runtime/resume-anchor';

const record = (offset: string, value = 'v', key = 'k', timestamp = '1000'): PortMessage => ({
  offset,
  timestamp,
  key: Buffer.from(key),
  value: Buffer.from(value),
  headers: {},
});

describe('the first record read after a held partition was sought back to its last record taken', () => {
  const anchor = record('5', 'big');

  it('is the anchor itself when the same record is read at its offset: the log is the same', () => {
    expect(judgeReadAtAnchor(anchor, record('5', 'big'))).toBe('anchor');
  });

  it('says the log is new when another record sits at the anchor\'s offset (value, key or timestamp differ)', () => {
    expect(judgeReadAtAnchor(anchor, record('5', 'small'))).toBe('new-log');
    expect(judgeReadAtAnchor(anchor, record('5', 'big', 'other'))).toBe('new-log');
    expect(judgeReadAtAnchor(anchor, record('5', 'big', 'k', '2000'))).toBe('new-log');
  });

  it('says the log is new when the read starts at 0, below the anchor (a shorter new log, read from its earliest)', () => {
    expect(judgeReadAtAnchor(anchor, record('0'))).toBe('new-log');
  });

  it('reads the anchor again when the client handed out a record below it but not the log\'s start: nothing is proven', () => {
    expect(judgeReadAtAnchor(anchor, record('3'))).toBe('seek-again');
  });

  it('reads on when the read starts past the anchor (compaction or retention removed it from the same log)', () => {
    expect(judgeReadAtAnchor(anchor, record('6'))).toBe('moved-on');
  });

  it('takes an anchor at offset 0 read again at 0 by identity alone', () => {
    expect(judgeReadAtAnchor(record('0', 'a'), record('0', 'a'))).toBe('anchor');
    expect(judgeReadAtAnchor(record('0', 'a'), record('0', 'b'))).toBe('new-log');
  });
});

describe('a batch read below the partition\'s next offset with no rebalance, judged by its last record taken', () => {
  const anchor = record('5', 'c');

  it('is the same log when the batch holds the anchor again, the same record', () => {
    expect(judgeRewind(anchor, [record('4', 'b'), record('5', 'c'), record('6', 'd')], '7')).toBe('same-log');
  });

  it('is a new log when another record sits at the anchor\'s offset', () => {
    expect(judgeRewind(anchor, [record('4', 'n4'), record('5', 'n5')], '6')).toBe('new-log');
  });

  it('is a new log when the log ends before the anchor (its high watermark): a new log whose offset 0 is hidden', () => {
    expect(judgeRewind(anchor, [record('1', 'n1')], '2')).toBe('new-log');
    expect(judgeRewind(anchor, [record('1', 'n1')], '5')).toBe('new-log');
  });

  it('reads the anchor when the batch ends before it and the log may hold it (or the client did not say)', () => {
    expect(judgeRewind(anchor, [record('1', 'n1')], '6')).toBe('read-anchor');
    expect(judgeRewind(anchor, [record('1', 'n1')], undefined)).toBe('read-anchor');
  });

  it('reads on when the batch passes the anchor\'s offset without it (compaction removed it from the same log)', () => {
    expect(judgeRewind(anchor, [record('4', 'b'), record('6', 'd')], '7')).toBe('same-log');
  });
});
