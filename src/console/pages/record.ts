import type { ConsumerModel } from '../../model/types';
import type { DlqRecord } from '../../dlq/session';
import { consoleUrl, html, preText } from '../html';
import type { SafeHtml } from '../html';
import { bytesView, errorOf, headerViews } from '../record-view';
import { isoTime } from './layout';

function bytesBlock(label: string, bytes: Buffer | null, id: string): SafeHtml {
  const view = bytesView(bytes);
  if (view.kind === 'null') return html`<h2>${label}</h2><p class="muted" id="${id}">null</p>`;
  const binary = view.kind === 'hex' && view.schemaId !== undefined ? `Schema Registry schema id ${view.schemaId}, as hex` : 'binary, as hex';
  const how = view.kind === 'json' ? 'JSON, pretty-printed' : view.kind === 'text' ? 'UTF-8 text' : binary;
  return html`<h2>${label} <span class="muted">(${view.size} bytes, ${how}${view.cut ? ', first 64 KiB shown' : ''})</span></h2><pre id="${id}" hx-disable>${preText(view.text)}</pre>`;
}

export function recordPage(consumer: ConsumerModel, record: DlqRecord, target: { topic: string; partition?: number } | { error: string }): SafeHtml {
  const error = errorOf(record.headers);
  return html`<p><a href="${consoleUrl(['consumers', consumer.name])}">← ${consumer.name}</a></p>
<h1>Record ${record.id} <span class="muted">of ${consumer.dlq.name}</span></h1>
<table class="panel"><tbody>
<tr><th>timestamp</th><td>${isoTime(record.timestamp)}</td></tr>
<tr><th>error name</th><td id="error-name">${error.name ?? '-'}</td></tr>
<tr><th>from</th><td class="mono">${record.decoded.originalTopic ?? '?'}[${record.decoded.originalPartition ?? '?'}]@${record.decoded.originalOffset ?? '?'}</td></tr>
<tr><th>original written</th><td id="original-timestamp">${record.decoded.originalTimestamp !== undefined ? isoTime(record.decoded.originalTimestamp) : '-'}</td></tr>
<tr><th>replayed before</th><td>${record.replayCount} time${record.replayCount === 1 ? '' : 's'}</td></tr>
<tr><th>a replay goes to</th><td class="mono">${'error' in target ? html`<span class="warn">${target.error}</span>` : `${target.topic}[${target.partition ?? 'by key'}]`}</td></tr>
</tbody></table>
<h2>Error message</h2>
<pre id="error-message" hx-disable>${error.message === undefined ? 'not kept' : preText(error.message)}</pre>
${error.stack !== undefined ? html`<h2>Stack</h2><pre id="error-stack" hx-disable>${preText(error.stack)}</pre>` : ''}
${bytesBlock('Key', record.key, 'key')}
${bytesBlock('Value', record.value, 'value')}
<h2>Headers</h2>
<table id="headers" hx-disable><thead><tr><th>name</th><th>value</th><th>decoded</th></tr></thead>
<tbody>${headerViews(record.headers).map((h) => html`<tr><td class="mono">${h.name}</td><td class="mono">${preText(h.raw)}</td><td>${h.meaning ?? ''}</td></tr>`)}</tbody></table>`;
}
