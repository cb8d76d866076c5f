import type { ConsumerModel } from '../../model/types';
import { bytesText } from '../../dlq/inspect';
import type { ExpiredRecords } from '../../dlq/session';
import { consoleUrl, html } from '../html';
import type { SafeHtml } from '../html';
import { filterQuery } from '../filter';
import type { RecordFilter } from '../filter';
import { DEFAULT_ACTION_LIMIT, MAX_ACTION_LIMIT } from '../selection';
import type { PageView } from '../scan';
import type { CountedSummary } from '../summary-cache';
import { isoTime } from './layout';
import type { PageContext } from './layout';

/** Records per page of the list. */
export const PAGE_SIZE = 50;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function hidden(fields: Readonly<Record<string, string | undefined>>): SafeHtml {
  return html`${Object.entries(fields).map(([name, value]) => (value === undefined ? '' : html`<input type="hidden" name="${name}" value="${value}">`))}`;
}

/** The error-name choice: every name the summary counted, or (until it arrives) the one filtered on. */
export function errorSelect(filter: RecordFilter, errorNames: readonly string[], oob = false): SafeHtml {
  const names = [...new Set([...errorNames, ...(filter.error !== undefined ? [filter.error] : [])])].sort();
  return html`<select name="error" id="error-select"${oob ? html` hx-swap-oob="true"` : ''}><option value="">any</option>${names.map((name) => html`<option value="${name}"${name === filter.error ? html` selected` : ''}>${name}</option>`)}</select>`;
}

function filterForm(consumer: ConsumerModel, filter: RecordFilter): SafeHtml {
  const q = filterQuery(filter);
  return html`<form class="filters panel" method="get" action="${consoleUrl(['consumers', consumer.name])}" id="filter">
<label>error name${errorSelect(filter, [])}</label>
<label>from (UTC)<input type="datetime-local" step="1" name="from" value="${q.from ?? ''}"></label>
<label>to (UTC)<input type="datetime-local" step="1" name="to" value="${q.to ?? ''}"></label>
<label>key contains<input type="text" name="key" value="${filter.key ?? ''}"></label>
<label>a header contains<input type="text" name="header" value="${filter.header ?? ''}"></label>
<button type="submit">Filter</button> <a href="${consoleUrl(['consumers', consumer.name])}">clear</a>
</form>`;
}

/** The dry-run button of a selection; replay and discard are offered on the dry run's result, never before. */
function dryRunForm(consumer: ConsumerModel, context: PageContext, fields: Readonly<Record<string, string | undefined>>, label: string, id?: string): SafeHtml {
  return html`<form class="inline"${id ? html` id="${id}"` : ''} hx-post="${consoleUrl(['consumers', consumer.name, 'dry-run'])}" hx-target="#result" hx-swap="innerHTML">
<input type="hidden" name="csrf" value="${context.csrf}">${hidden(fields)}<button type="submit">${label}</button></form>`;
}

/**
 * A consumer's DLQ page: one page of records, read from the cursor to the end of the page and
 * no further. The counts and groups need the whole DLQ: they load after the page is shown
 * (summaryFragment), so the first paint never waits for them.
 */
export function consumerPage(consumer: ConsumerModel, view: PageView, expiredRecords: readonly ExpiredRecords[], filter: RecordFilter, after: string | undefined, context: PageContext): SafeHtml {
  const { shown } = view;
  const q = filterQuery(filter);
  const expired = expiredRecords.reduce((n, e) => n + e.total, 0);
  const readOnly = context.readOnlyReason(consumer.name);
  return html`<h1>${consumer.name} <span class="muted">· ${consumer.dlq.name}</span></h1>
<div id="summary" hx-get="${consoleUrl(['consumers', consumer.name, 'summary'], q)}" hx-trigger="load" hx-swap="outerHTML"><p class="muted" id="counting">Counting the unhandled records and their groups…</p></div>
<p>${expired > 0 ? html`<span class="warn">Retention deleted ${expired} unhandled records before anyone handled them; they are lost.</span> ` : ''}<a href="${consoleUrl(['consumers', consumer.name, 'audit'])}">audit log</a></p>
${readOnly ? html`<p class="panel warn" id="read-only">Read-only: ${readOnly}</p>` : ''}
${filterForm(consumer, filter)}
<h2>Records <span class="muted">(id = partition:offset, in offset order)</span></h2>
<div class="panel">
${dryRunForm(consumer, context, {}, 'Dry run the ticked records', 'selection')}
<form class="inline" hx-post="${consoleUrl(['consumers', consumer.name, 'dry-run'])}" hx-target="#result" hx-swap="innerHTML">
<input type="hidden" name="csrf" value="${context.csrf}">${hidden({ ...q, scope: 'filter' })}
<button type="submit">Dry run the whole filter result</button> <label class="inline">at most <input type="number" name="limit" min="1" value="${DEFAULT_ACTION_LIMIT}"></label></form>
</div>
<div id="result"></div>
<table id="records"><thead><tr><th></th><th>id</th><th>timestamp</th><th>key</th><th>error name</th><th>error message</th><th>original</th><th class="num">replays</th></tr></thead>
<tbody>${shown.map(
    (r) => html`<tr><td><input type="checkbox" name="ids" value="${r.id}" form="selection" aria-label="select ${r.id}"></td>
<td class="mono"><a href="${consoleUrl(['consumers', consumer.name, 'records', r.id])}">${r.id}</a></td><td>${isoTime(r.timestamp)}</td><td class="mono">${clip(bytesText(clipBytes(r.key)), 80)}</td>
<td>${r.decoded.errorClass ?? '-'}</td><td>${clip(r.decoded.errorMessage ?? '', 160)}</td><td class="mono">${r.decoded.originalTopic ?? '?'}[${r.decoded.originalPartition ?? '?'}]@${r.decoded.originalOffset ?? '?'}</td><td class="num">${r.replayCount}</td></tr>`,
  )}</tbody></table>
<div class="pager">${after !== undefined ? html`<a href="${consoleUrl(['consumers', consumer.name], q)}">first page</a>` : ''}
<span id="page">${shown.length === 0 ? (after === undefined ? 'no records' : `no records after ${after}`) : `${shown.length} records${after === undefined ? '' : ` after ${after}`}`}</span>${view.next ? html`<a href="${consoleUrl(['consumers', consumer.name], { ...q, after: view.next })}" id="next-page">next ${PAGE_SIZE}</a>` : ''}</div>`;
}

/** A key as the list shows it: its first bytes only, however large it is. */
function clipBytes(bytes: Buffer | null): Buffer | null {
  return bytes && bytes.length > 256 ? bytes.subarray(0, 256) : bytes;
}

/** The counts and groups of a consumer page, with the error names of its filter's choice (out of band). */
export function summaryFragment(consumer: ConsumerModel, counted: CountedSummary, filter: RecordFilter, context: PageContext): SafeHtml {
  const { summary } = counted;
  const q = filterQuery(filter);
  const ends = [...counted.ends].sort(([a], [b]) => a - b).map(([p, end]) => `${p}:${end}`).join(' ');
  return html`<div id="summary">
<p><strong id="unhandled">${summary.unhandled}</strong> unhandled records; <strong id="matching">${summary.matching}</strong> match the filter.${summary.oldest !== undefined ? html` Oldest unhandled: ${isoTime(summary.oldest)}.` : ''}
<span class="muted" id="counted-at">Counted at ${isoTime(counted.at)}, to the DLQ's end offsets then (${ends}); reload to count what came since.</span></p>
<h2>By error name and original topic</h2>
<table id="groups"><thead><tr><th>error name</th><th>original topic</th><th class="num">records</th><th>first seen</th><th>last seen</th><th class="num">replayed before</th><th>example message</th><th></th></tr></thead>
<tbody>${summary.groups.map(
    (g) => html`<tr><td><a href="${consoleUrl(['consumers', consumer.name], { ...q, error: g.errorClass })}">${g.errorClass}</a></td><td class="mono">${g.originalTopic}</td><td class="num">${g.count}</td><td>${g.oldest}</td><td>${g.newest}</td><td class="num">${g.replayedBefore}</td><td>${clip(g.example, 120)}</td>
<td>${dryRunForm(consumer, context, { ...q, scope: 'group', group_error: g.errorClass, group_topic: g.originalTopic, limit: String(Math.min(Math.max(g.count, 1), MAX_ACTION_LIMIT)) }, 'select group')}</td></tr>`,
  )}</tbody></table>
</div>
${errorSelect(filter, summary.groups.map((g) => g.errorClass), true)}`;
}
