import { DashboardLinkBuilder, DashboardLinkType } from '@grafana/grafana-foundation-sdk/dashboard';
import { runbookPageUrl, runbookProcedureUrl, runbookUrl } from '../../naming';
import { ALERTS } from '../../alerts';
import type { AlertKey } from '../../alerts';

/** Where a consumer's runbook lives: the same base URL the alerts' runbook_url uses. */
export interface RunbookLocation {
  readonly runbookBaseUrl: string;
  readonly consumer: string;
}

function link(title: string, url: string): DashboardLinkBuilder {
  return new DashboardLinkBuilder(title).type(DashboardLinkType.Link).url(url).targetBlank(true);
}

export function runbookPageLink(at: RunbookLocation): DashboardLinkBuilder {
  return link(`Runbook: ${at.consumer}`, runbookPageUrl(at.runbookBaseUrl, at.consumer));
}

/** The runbook section of the alert a panel watches. */
export function alertSectionLink(at: RunbookLocation, alert: AlertKey): DashboardLinkBuilder {
  return link(`Runbook: ${ALERTS[alert]}`, runbookUrl(at.runbookBaseUrl, at.consumer, alert));
}

/** The runbook's `krt dlq inspect` instructions. */
export function inspectDlqLink(at: RunbookLocation): DashboardLinkBuilder {
  return link('Inspect the DLQ (krt dlq inspect)', runbookProcedureUrl(at.runbookBaseUrl, at.consumer, 'inspectDlq'));
}
