import { favourSmallHeap } from '../src/cli/small-heap';

describe('the heap setting of krt synth', () => {
  it('sets a small growing factor when node was given none', () => {
    expect(favourSmallHeap([])).toBe(true);
    expect(favourSmallHeap(['--enable-source-maps', '--max-old-space-size=512'])).toBe(true);
  });

  it("leaves a growing factor the user gave node alone, in either spelling", () => {
    expect(favourSmallHeap(['--heap-growing-percent=50'])).toBe(false);
    expect(favourSmallHeap(['--heap_growing_percent=35'])).toBe(false);
  });
});
