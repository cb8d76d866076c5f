import { visibleText } from '../util/visible-text';

/** Markup this module built; everything else interpolated into `html` is escaped. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;', '=': '&#61;' };

/**
 * Text as HTML shows it: markup characters as entities (so no tag or attribute breaks out,
 * in element content or a quoted attribute) and invisible characters as escapes (so no
 * bidi override reorders what the operator reads).
 */
export function escapeHtml(text: string, options: { keepLines?: boolean } = {}): string {
  return visibleText(text, options).replace(/[&<>"'`=]/g, (c) => ENTITIES[c]!);
}

type Interpolated = SafeHtml | string | number | bigint | boolean | null | undefined | readonly Interpolated[];

function render(value: Interpolated): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** A template whose every interpolation is escaped unless it is SafeHtml (or a list of it). */
export function html(strings: TemplateStringsArray, ...values: Interpolated[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

/** Multi-line text for a <pre>: escaped, keeping its lines. */
export function preText(text: string): SafeHtml {
  return new SafeHtml(escapeHtml(text, { keepLines: true }));
}

/**
 * A URL of the console itself, built from path segments and query values, each encoded:
 * never a link whose scheme comes from data (no `javascript:`).
 */
export function consoleUrl(segments: readonly string[], query: Readonly<Record<string, string | undefined>> = {}): string {
  const path = `/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, value);
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

/** An external link from the topology spec (runbooks, Grafana): only http(s), else no link. */
export function externalUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
