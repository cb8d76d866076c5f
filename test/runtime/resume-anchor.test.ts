import type { PortMessage } from '../../src/runtime/port';
import { judgeReadAtAnchor } from '../../src/runtime/resume-anchor';

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
