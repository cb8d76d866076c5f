import type { ConsumerModel, TopologyModel } from '../../model/types';
import { dashboardTitle, dashboardUid, runbookProcedureUrl, runbookUrl } from '../../naming';
import { consoleUrl, externalUrl, html } from '../html';
import type { SafeHtml } from '../html';
import { age, isoTime } from './layout';

export interface OverviewRow {
  readonly topology: TopologyModel;
  readonly consumer: ConsumerModel;
  /** What the DLQ session found, or why it could not read the DLQ. */
  readonly backlog: { readonly unhandled: number; readonly oldest?: number; readonly expired: number } | { readonly error: string };
}

function link(url: string | undefined, text: string): SafeHtml {
  return url ? html`<a href="${url}" rel="noopener noreferrer">${text}</a>` : html`<span class="muted">${text}</span>`;
}

/** The consumer's Grafana dashboard: a link when the console knows Grafana's address, its uid otherwise. */
function dashboard(topology: TopologyModel, grafanaUrl: string | undefined): SafeHtml {
  const uid = dashboardUid(topology.name);
  const base = grafanaUrl ? externalUrl(grafanaUrl) : undefined;
  return base ? link(`${base.replace(/\/+$/, '')}/d/${encodeURIComponent(uid)}`, dashboardTitle(topology.name)) : html`<span class="muted" title="start krt console with --grafana-url to link it">${dashboardTitle(topology.name)} (uid ${uid})</span>`;
}

export function overviewPage(rows: readonly OverviewRow[], now: number, grafanaUrl: string | undefined): SafeHtml {
  const sorted = [...rows].sort((a, b) => backlogOf(b) - backlogOf(a) || (a.consumer.name < b.consumer.name ? -1 : 1));
  return html`<h1>Dead-letter queues</h1>
<p class="muted">Every consumer of the topologies, largest backlog first. Numbers as a DLQ session read them at ${isoTime(now)}.</p>
<table id="overview">
<thead><tr><th>consumer</th><th>DLQ</th><th class="num">unhandled</th><th>oldest unhandled</th><th class="num">expired</th><th>runbook</th><th>dashboard</th></tr></thead>
<tbody>
${sorted.map((row) => {
  const { consumer, topology, backlog } = row;
  const runbook = html`${link(externalUrl(runbookProcedureUrl(topology.runbookBaseUrl, consumer.name, 'inspectDlq')), 'inspect the DLQ')} · ${link(externalUrl(runbookUrl(topology.runbookBaseUrl, consumer.name, 'dlqBacklog')), 'backlog alert')}`;
  const cells =
    'error' in backlog
      ? html`<td colspan="3" class="warn">${backlog.error}</td>`
      : html`<td class="num">${backlog.unhandled}</td><td>${backlog.oldest === undefined ? '-' : html`${age(now - backlog.oldest)} <span class="muted">(${isoTime(backlog.oldest)})</span>`}</td><td class="num${backlog.expired > 0 ? ' warn' : ''}">${backlog.expired}</td>`;
  return html`<tr><td><a href="${consoleUrl(['consumers', consumer.name])}">${consumer.name}</a> <span class="muted">(${topology.name})</span></td><td class="mono">${consumer.dlq.name}</td>${cells}<td>${runbook}</td><td>${dashboard(topology, grafanaUrl)}</td></tr>`;
})}
</tbody>
</table>`;
}

function backlogOf(row: OverviewRow): number {
  return 'error' in row.backlog ? -1 : row.backlog.unhandled;
}
