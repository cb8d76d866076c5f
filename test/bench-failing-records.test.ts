import { fails } from '../bench/throughput';

/** The throughput bench's choice of failing records, read from a value as bench/kafka.ts produces it. */
const valueOf = (index: number, bytes = 512) => Buffer.from(String(index).padEnd(bytes));

describe('the throughput bench fails a record', () => {
  it('when its index modulo 100 is below the percent failing', () => {
    const failing = (percent: number) => Array.from({ length: 1_000 }, (_, i) => i).filter((i) => fails(valueOf(i), percent));
    expect(failing(1)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    expect(failing(10)).toEqual(Array.from({ length: 1_000 }, (_, i) => i).filter((i) => i % 100 < 10));
    expect(failing(0)).toEqual([]);
  });

  it('reads indexes past a million and values with no padding', () => {
    expect(fails(valueOf(1_234_505), 10)).toBe(true);
    expect(fails(valueOf(1_234_515), 10)).toBe(false);
    expect(fails(Buffer.from('7'), 10)).toBe(true);
    expect(fails(Buffer.from('299'), 1)).toBe(false);
  });
});
