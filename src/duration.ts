/**
 * Durations as people write them in a spec: a whole number and one unit.
 * Pure and dependency-free, so the runtime can share it with the generator.
 */

/** Milliseconds per unit, largest first (the order `formatDuration` searches in). */
const UNIT_MS = {
  w: 7 * 24 * 60 * 60 * 1000,
  d: 24 * 60 * 60 * 1000,
  h: 60 * 60 * 1000,
  m: 60 * 1000,
  s: 1000,
  ms: 1,
} as const;

export type DurationUnit = keyof typeof UNIT_MS;

/** A duration string such as `'5s'`, `'10m'`, `'1h'`, `'28d'`. */
export type Duration = `${number}${DurationUnit}`;

/** The accepted form: digits then one of ms, s, m, h, d, w. */
export const DURATION_PATTERN = /^(\d+)(ms|s|m|h|d|w)$/;

export const DURATION_HINT = "write a whole number followed by ms, s, m, h, d or w, e.g. '30s' or '10m'";

export type DurationParse = { ok: true; ms: number } | { ok: false; reason: string };

export function parseDuration(text: string): DurationParse {
  const match = DURATION_PATTERN.exec(text.trim());
  if (!match) return { ok: false, reason: `'${text}' is not a duration: ${DURATION_HINT}` };
  const ms = Number(match[1]) * UNIT_MS[match[2] as DurationUnit];
  if (ms <= 0) return { ok: false, reason: `'${text}' must be longer than zero: ${DURATION_HINT}` };
  if (!Number.isSafeInteger(ms)) return { ok: false, reason: `'${text}' is too long to represent in milliseconds` };
  return { ok: true, ms };
}

/** Parses a duration known to be valid (for example one already checked by the spec schema). */
export function durationToMs(text: string): number {
  const parsed = parseDuration(text);
  if (!parsed.ok) throw new RangeError(parsed.reason);
  return parsed.ms;
}

/**
 * The shortest exact label of a duration in the largest unit up to days:
 * 5000 -> '5s', 90000 -> '90s', 600000 -> '10m', 604800000 -> '7d', 1500 -> '1500ms'.
 * Weeks are left out on purpose: '7d' reads better in a topic name than '1w'.
 */
export function formatDuration(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new RangeError(`cannot label a duration of ${ms} ms`);
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
