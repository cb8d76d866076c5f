import type { ValueFormat } from '../../alerts/rule';

/**
 * Prometheus's template functions `humanize`, `humanizeDuration` and
 * `humanizePercentage`, ported for the values the generated rule tests use, so a test
 * can state the exact annotation text promtool will render.
 */

/** Go's `%.4g` for numbers between 1e-4 and 1e4, the range these tests produce. */
function fourSignificantDigits(v: number): string {
  return String(Number(v.toPrecision(4)));
}

export function humanize(value: number): string {
  let v = value;
  if (v === 0 || !Number.isFinite(v)) return fourSignificantDigits(v);
  if (Math.abs(v) >= 1) {
    let prefix = '';
    for (const p of ['k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y']) {
      if (Math.abs(v) < 1000) break;
      prefix = p;
      v /= 1000;
    }
    return `${fourSignificantDigits(v)}${prefix}`;
  }
  let prefix = '';
  for (const p of ['m', 'u', 'n', 'p', 'f', 'a', 'z', 'y']) {
    if (Math.abs(v) >= 1) break;
    prefix = p;
    v *= 1000;
  }
  return `${fourSignificantDigits(v)}${prefix}`;
}

export function humanizeDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  if (seconds < 1) throw new RangeError('sub-second durations are not used by the generated tests');
  const total = Math.trunc(seconds);
  const s = total % 60;
  const m = Math.trunc(total / 60) % 60;
  const h = Math.trunc(total / 3600) % 24;
  const d = Math.trunc(total / 86400);
  if (d !== 0) return `${d}d ${h}h ${m}m ${s}s`;
  if (h !== 0) return `${h}h ${m}m ${s}s`;
  if (m !== 0) return `${m}m ${s}s`;
  return `${fourSignificantDigits(seconds)}s`;
}

export function humanizePercentage(ratio: number): string {
  return `${fourSignificantDigits(ratio * 100)}%`;
}

export const FORMATTERS: Record<ValueFormat, (v: number) => string> = { humanize, humanizeDuration, humanizePercentage };

/** The template expression that renders an alert's value in an annotation. */
export function valueTemplate(format: ValueFormat): string {
  return `{{ $value | ${format} }}`;
}
