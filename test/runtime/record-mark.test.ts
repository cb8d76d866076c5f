import { markTime, recordMark } from '../../src/runtime/record-mark';

describe('the mark a DLQ record is known by', () => {
  it('is its timestamp and the sizes of its key and value, -1 for none', () => {
    expect(recordMark({ timestamp: '1700000000000', key: Buffer.from('order-1'), value: Buffer.from('é') })).toBe('1700000000000/7/2');
    expect(recordMark({ timestamp: '1700000000001', key: null, value: null })).toBe('1700000000001/-1/-1');
  });

  it('gives back the time it carries, and none for a timestamp that is no time', () => {
    expect(markTime('1700000000000/7/2')).toBe(1_700_000_000_000);
    expect([markTime('-1/7/2'), markTime('/7/2'), markTime('abc/1/1')]).toEqual([undefined, undefined, undefined]);
  });
});
