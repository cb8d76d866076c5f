import { html } from '../html';
import type { SafeHtml } from '../html';
import { isoTimeOf } from '../../runtime/headers';

/** What every page needs to know of the session that renders it. */
export interface PageContext {
  /** The CSRF token every mutating form carries. */
  readonly csrf: string;
  /** Whether replay and discard are possible for a consumer; otherwise why not. */
  readonly readOnlyReason: (consumer: string) => string | undefined;
  /** The name the action forms start with (the operator still confirms it). */
  readonly operator: string;
}

// htmx may neither evaluate code nor run scripts from responses, nor add inline styles (the CSP forbids them).
const HTMX_CONFIG = JSON.stringify({ allowEval: false, allowScriptTags: false, includeIndicatorStyles: false, selfRequestsOnly: true, historyCacheSize: 0 });

export function page(title: string, body: SafeHtml, context: PageContext): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="htmx-config" content="${HTMX_CONFIG}">
<title>${title} · krt console</title>
<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/htmx.min.js"></script>
</head>
<body hx-headers="${JSON.stringify({ 'x-csrf-token': context.csrf })}">
<header><strong>krt console</strong><a href="/">overview</a></header>
<main>
${body}
</main>
</body>
</html>
`.markup;
}

/** "3 min", "2 h 5 min", "4 d 1 h": an age at a glance. */
export function age(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return `${Math.max(0, Math.floor(ms / 1000))} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** A record's own timestamp is whatever its producer set: one a Date cannot hold is shown as the number. */
export const isoTime = (ms: number) => isoTimeOf(ms)?.replace('.000Z', 'Z') ?? String(ms);
