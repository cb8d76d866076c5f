import { judgeSoughtBack, SEEK_AGAIN_MS, SEEK_CONFIRM_MS } from '../../src/runtime/sought-back';

describe('a seek back to confirm what a record read past it says', () => {
  const first = judgeSoughtBack(undefined, 4n, 9n, 1_000);

  it('is asked for by the first record read past the offset, which is where the client had read', () => {
    expect(first).toEqual({ verdict: 'seek', next: { at: 4n, readTo: 10n, since: 1_000, lastSeek: 1_000 } });
  });

  it('took effect when a record below where the client had read comes: what is missing from the offset is gone', () => {
    expect(judgeSoughtBack(first.next, 4n, 6n, 1_001).verdict).toBe('past');
    expect(judgeSoughtBack(first.next, 4n, 9n, 1_001).verdict).toBe('past'); // the record that asked, read again
  });

  it('is no evidence while records past where the client had read come: they may be fetched before the seek', () => {
    expect(judgeSoughtBack(first.next, 4n, 10n, 1_001)).toEqual({ verdict: 'wait', next: first.next });
  });

  it('is asked for again now and then while such records come (a seek lost, not late)', () => {
    expect(judgeSoughtBack(first.next, 4n, 11n, 1_000 + SEEK_AGAIN_MS)).toEqual({ verdict: 'seek again', next: { ...first.next!, lastSeek: 1_000 + SEEK_AGAIN_MS } });
  });

  it('counts such records once SEEK_CONFIRM_MS passed: everything from the offset up to there is gone', () => {
    expect(judgeSoughtBack(first.next, 4n, 50n, 1_000 + SEEK_CONFIRM_MS).verdict).toBe('past');
  });

  it('begins again for another offset', () => {
    expect(judgeSoughtBack(first.next, 5n, 6n, 1_001)).toEqual({ verdict: 'seek', next: { at: 5n, readTo: 7n, since: 1_001, lastSeek: 1_001 } });
  });
});
