import { formatDuration, parseDuration } from '../src/duration';

describe('durations', () => {
  it.each([
    ['100ms', 100],
    ['5s', 5_000],
    ['10m', 600_000],
    ['1h', 3_600_000],
    ['28d', 2_419_200_000],
    ['1w', 604_800_000],
  ])('reads %s as %i milliseconds', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each(['', '10', 'm', '1.5h', '-5s', '10 minutes', '1h30m', '5S'])('rejects %p with a hint of the accepted form', (text) => {
    const parsed = parseDuration(text);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.reason).toContain("e.g. '30s' or '10m'");
  });

  it('rejects a zero duration as not longer than zero', () => {
    expect(parseDuration('0s')).toEqual({ ok: false, reason: expect.stringContaining('must be longer than zero') });
  });

  it.each([
    [5_000, '5s'],
    [90_000, '90s'],
    [60_000, '1m'],
    [600_000, '10m'],
    [3_600_000, '1h'],
    [5_400_000, '90m'],
    [86_400_000, '1d'],
    [604_800_000, '7d'],
    [1_500, '1500ms'],
  ])('labels %i ms as %s, the largest exact unit', (ms, label) => {
    expect(formatDuration(ms)).toBe(label);
  });

  it('round-trips every label it makes', () => {
    for (const ms of [1, 999, 1_000, 61_000, 3_600_000, 90_000_000]) {
      expect(parseDuration(formatDuration(ms))).toEqual({ ok: true, ms });
    }
  });
});
