import type { ConsumerModel } from '../../model/types';
import { bytesText } from '../../dlq/inspect';
import type { DlqRecord } from '../../dlq/session';
import { consoleUrl, html } from '../html';
import type { SafeHtml } from '../html';
import type { AuditLogEntry } from '../backend';
import type { Job } from '../jobs';
import { describeSelection, selectionFields } from '../selection';
import type { Selection } from '../selection';
import type { PageContext } from './layout';

/** Lines of a dry run shown; the count says how many more. */
const SHOWN_LINES = 200;

type Target = { readonly topic: string; readonly partition?: number } | { readonly error: string };

function hidden(fields: Readonly<Record<string, string | undefined>>): SafeHtml {
  return html`${Object.entries(fields).map(([name, value]) => (value === undefined ? '' : html`<input type="hidden" name="${name}" value="${value}">`))}`;
}

export function dryRunFragment(consumer: ConsumerModel, selection: Selection, chosen: readonly DlqRecord[], targetOf: (r: DlqRecord) => Target, route: string, context: PageContext): SafeHtml {
  const targets = chosen.map((r) => ({ record: r, target: targetOf(r) }));
  const refused = targets.filter((t) => 'error' in t.target);
  const readOnly = context.readOnlyReason(consumer.name);
  // The actions name the records this dry run listed, not the filter it resolved: dead letters
  // that match it by the time the button is pressed were never shown, and are not acted on.
  const fields = { csrf: context.csrf, ...selectionFields({ scope: 'ids', ids: chosen.map((r) => r.id) }) };
  const by = html`<label>your name, for the audit log<input type="text" name="by" required value="${context.operator}"></label>`;
  const actions = readOnly
    ? html`<p class="warn">Read-only: ${readOnly}</p>`
    : chosen.length === 0
      ? ''
      : html`<div class="actions">
<form class="action panel" id="replay-form" hx-post="${consoleUrl(['consumers', consumer.name, 'replay'])}" hx-target="#result" hx-swap="innerHTML">${hidden(fields)}
<p class="route" id="route">A replay publishes these ${chosen.length} records ${route}.</p>
<label>records per second at most<input type="number" name="rate" min="0.1" step="any" value="10" required></label>${by}
<button type="submit"${refused.length > 0 ? html` disabled` : ''}>Replay ${chosen.length} record${chosen.length === 1 ? '' : 's'}</button></form>
<form class="action panel" id="discard-form" hx-post="${consoleUrl(['consumers', consumer.name, 'discard'])}" hx-target="#result" hx-swap="innerHTML">${hidden(fields)}
<p>A discard marks them handled without publishing anything; the reason goes to the audit log.</p>
<label>why they cannot be saved<input type="text" name="reason" required></label>${by}
<button type="submit" class="danger">Discard ${chosen.length} record${chosen.length === 1 ? '' : 's'}</button></form>
</div>`;
  return html`<div class="panel" id="dry-run">
<h2>Dry run: ${describeSelection(selection)} → ${chosen.length} record${chosen.length === 1 ? '' : 's'}</h2>
<p class="muted">Nothing was published or committed.</p>
${refused.length > 0 ? html`<p class="error">${refused.length} of them cannot be replayed: ${'error' in refused[0]!.target ? refused[0]!.target.error : ''}</p>` : ''}
<table><thead><tr><th>id</th><th>would be published to</th><th>key</th><th>error</th></tr></thead><tbody>
${targets.slice(0, SHOWN_LINES).map(({ record, target }) => html`<tr><td class="mono">${record.id}</td><td class="mono">${'error' in target ? html`<span class="warn">${target.error}</span>` : `${target.topic}[${target.partition ?? 'by key'}]`}</td><td class="mono">${bytesText(record.key)}</td><td>${record.decoded.errorClass ?? '-'}: ${record.decoded.errorMessage ?? ''}</td></tr>`)}
</tbody></table>
${targets.length > SHOWN_LINES ? html`<p class="muted">and ${targets.length - SHOWN_LINES} more</p>` : ''}
${actions}
</div>`;
}

export function auditTable(entries: readonly AuditLogEntry[], id = 'audit'): SafeHtml {
  const detail = (e: AuditLogEntry) => {
    const { errorClass, originalTopic, replayCount, count, belowOffset, from, to } = e.fields as Record<string, unknown>;
    // A `no-records` entry: offsets a commit passed that hold no record (transaction markers, aborted records).
    const noRecords = e.action === 'no-records' && from !== undefined && `offsets ${String(from)}..${String(to)} hold no record (transaction markers)`;
    return [errorClass && `error ${String(errorClass)}`, originalTopic && `from ${String(originalTopic)}`, replayCount !== undefined && `replay count before ${String(replayCount)}`, count !== undefined && `${String(count)} records below ${String(belowOffset)}`, noRecords]
      .filter(Boolean)
      .join(', ');
  };
  return html`<table id="${id}"><thead><tr><th>at</th><th>action</th><th>record</th><th>by</th><th>reason</th><th>details</th></tr></thead>
<tbody>${entries.map((e) => html`<tr><td>${e.at}</td><td>${e.action}</td><td class="mono">${e.key}</td><td>${e.by}</td><td>${e.reason ?? ''}</td><td class="muted">${detail(e)}</td></tr>`)}</tbody></table>`;
}

export function jobFragment(job: Job): SafeHtml {
  const url = consoleUrl(['jobs', job.id]);
  const verb = job.action === 'replay' ? 'replayed' : 'discarded';
  if (job.state === 'running') {
    return html`<div class="panel" id="job" hx-get="${url}" hx-trigger="every 700ms" hx-swap="outerHTML">
<p>${job.action === 'replay' ? 'Replaying' : 'Discarding'} ${job.description}: <progress max="${Math.max(job.total, 1)}" value="${job.done}"></progress> <span id="progress">${verb} ${job.done} of ${job.total || '?'}</span></p></div>`;
  }
  if (job.state === 'failed') {
    return html`<div class="panel" id="job"><p class="error" id="job-error">The ${job.action} stopped: ${job.error}. Records ${verb} before it stopped are committed and in the audit log; the rest are still in the DLQ.</p></div>`;
  }
  const outcome = job.outcome!;
  return html`<div class="panel" id="job"><p class="ok" id="job-done">${verb[0]!.toUpperCase()}${verb.slice(1)} ${outcome.handled.length} record${outcome.handled.length === 1 ? '' : 's'} ${job.action === 'replay' ? job.route : ''} (${job.description}), by ${job.by}.</p>
${outcome.left.length > 0 ? html`<p class="warn">Left in the DLQ: ${outcome.left.map((l) => `${l.id} (${l.reason})`).join('; ')}</p>` : ''}
<h2>The audit entries it wrote</h2>
${outcome.audit.length > 0 ? auditTable(outcome.audit, 'job-audit') : html`<p class="warn">The audit log did not show them yet; see the audit log page.</p>`}</div>`;
}

export function auditPage(consumer: ConsumerModel, entries: readonly AuditLogEntry[], limit: number): SafeHtml {
  return html`<p><a href="${consoleUrl(['consumers', consumer.name])}">← ${consumer.name}</a></p>
<h1>Audit log <span class="muted">· ${consumer.dlqAudit.name}</span></h1>
<p class="muted">The newest ${limit} entries at most, newest first: every replay, discard and expired range, with who and why. The floor each step records per partition (<code>handled-below</code>) is bookkeeping for the handled state, left out here.</p>
${auditTable(entries.filter((e) => e.action !== 'handled-below'))}`;
}
