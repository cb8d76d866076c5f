import { formatDuration } from '../../duration';
import { ALERT_MODULES, appliesTo } from '../../alerts';
import { percent } from '../../alerts/context';
import { aclRules, compareAclRules } from '../../model/acls';
import type { AclRule } from '../../model/acls';
import type { ConsumerModel, TopologyModel } from '../../model/types';
import {
  DLQ_FLAGS,
  dlqReaderGroupName,
  DLQ_RECORD_ID_FORMAT,
  HEADERS,
  KAFKA_ENV,
  METRICS,
  principalName,
  runbookAnchor,
  runbookFileName,
  SPRING_DLT_HEADERS,
} from '../../naming';
import { GENERATED_NOTICE } from '../types';
import { KCAT_CONFIG, PLACEHOLDERS, runbookCommands } from './commands';
import { alertTemplate } from './templates';

const CRITICALITY_MEANING = {
  money: 'one record in the DLQ is an incident',
  standard: 'a few DLQ records are worth a look; many are an incident',
  analytics: 'about a thousand DLQ records are worth a look',
} as const;

/** A section per alert the consumer has, in the order of the alert modules, each laid out by its own template. */
function alertSections(c: ConsumerModel, page: object) {
  return ALERT_MODULES.filter((alert) => appliesTo(alert, c)).map((alert) => ({
    ...alert.runbook(c),
    name: alert.name,
    anchor: runbookAnchor(alert.key),
    partial: alertTemplate(alert),
    severity: c.alerts[alert.key].severity,
    page,
  }));
}

function inPlaceSummary(c: ConsumerModel): string {
  const { attempts, backoffMs, maxBackoffMs, jitter } = c.inPlace;
  if (attempts <= 1) return 'There are no in-place retries.';
  return `First the handler tries it up to ${attempts} times in place, waiting ${formatDuration(backoffMs)} and doubling up to ${formatDuration(maxBackoffMs)}, ${percent(jitter)} jittered.`;
}

/** A topology's ACL rules by resource, computed once for all of its runbooks. */
export function aclIndex(topology: TopologyModel): Map<string, AclRule[]> {
  const index = new Map<string, AclRule[]>();
  for (const rule of aclRules(topology)) {
    const key = `${rule.resourceType}\u0000${rule.resourceName}`;
    index.set(key, [...(index.get(key) ?? []), rule]);
  }
  return index;
}

/** Everything one runbook page shows; the template only lays it out. */
export function runbookView(topology: TopologyModel, c: ConsumerModel, acls: Map<string, AclRule[]> = aclIndex(topology)) {
  const resources = [
    ...[c.mainTopic.name, ...c.tiers.map((t) => t.name), c.dlq.name, c.dlqAudit.name].map((name) => `Topic\u0000${name}`),
    ...[...new Set([...Object.values(c.groups), dlqReaderGroupName(c.groups.replay)])].map((name) => `Group\u0000${name}`),
  ];
  const rules = resources.flatMap((key) => acls.get(key) ?? []).sort(compareAclRules);
  const lastTier = c.tiers[c.tiers.length - 1];
  const page: Record<string, unknown> = {
    notice: GENERATED_NOTICE,
    name: c.name,
    topology: topology.name,
    source: c.source.file,
    owner: topology.owner,
    principal: c.principal,
    principals: { ...topology.principals, replayName: principalName(topology.principals.replay), monitorName: principalName(topology.principals.monitor) },
    criticality: c.criticality,
    criticalityMeaning: CRITICALITY_MEANING[c.criticality],
    isMoney: c.criticality === 'money',
    isParkByKey: c.ordering === 'park-by-key',
    ordering: c.ordering,
    orderingPartial: `runbook/ordering/${c.ordering}`,
    mainTopic: c.mainTopic,
    groups: c.groups,
    /** Park-by-key: the main group reads the tiers too. */
    sharedGroup: c.groups.retry === c.groups.main,
    tiers: c.tiers.map((t) => ({ index: t.index, label: t.label, name: t.name, partitions: t.partitions, retention: formatDuration(t.retentionMs) })),
    lastTier: lastTier ?? { label: '' },
    ladderSummary: c.tiers.map((t) => t.label).join(' → '),
    dlq: { name: c.dlq.name, partitions: c.dlq.partitions, retention: formatDuration(c.dlq.retentionMs) },
    dlqAudit: { name: c.dlqAudit.name, partitions: c.dlqAudit.partitions, retention: formatDuration(c.dlqAudit.retentionMs) },
    diagram: mermaidDiagram(c),
    inPlaceSummary: inPlaceSummary(c),
    acls: rules.filter((r) => r.role !== 'consumer' || r.principal === c.principal),
    headers: HEADERS,
    springHeaders: c.headerStyle === 'x+spring' ? Object.values(SPRING_DLT_HEADERS) : false,
    errorPolicy: {
      inPlace: c.inPlace.attempts > 1 ? `${c.inPlace.attempts} attempts, backoff ${formatDuration(c.inPlace.backoffMs)} doubling to ${formatDuration(c.inPlace.maxBackoffMs)}, ${percent(c.inPlace.jitter)} jitter` : 'none',
      permanentList: c.errorPolicy.permanent.map((e) => `\`${e}\``).join(', '),
      ambiguousList: c.errorPolicy.ambiguous.map((e) => `\`${e}\``).join(', '),
      ambiguousTiers: c.errorPolicy.ambiguousTiers,
      ambiguousTiersText: c.errorPolicy.ambiguousTiers === 1 ? '1 tier' : `${c.errorPolicy.ambiguousTiers} tiers`,
    },
    metrics: METRICS,
    commands: runbookCommands(c),
    flags: DLQ_FLAGS,
    env: KAFKA_ENV,
    recordIdFormat: DLQ_RECORD_ID_FORMAT,
    clientConfigs: { kcat: KCAT_CONFIG },
    placeholders: PLACEHOLDERS,
  };
  page.alerts = alertSections(c, page);
  return page;
}

function mermaidDiagram(c: ConsumerModel): string {
  const lines = ['flowchart LR', `  main["${c.mainTopic.name}<br/>${c.mainTopic.partitions} partitions"]`];
  c.tiers.forEach((t) => lines.push(`  t${t.index}["${t.name}<br/>waits ${t.label}"]`));
  lines.push(`  dlq[("${c.dlq.name}<br/>kept ${formatDuration(c.dlq.retentionMs)}")]`);
  const first = c.tiers[0];
  if (first) lines.push(`  main -- "transient error" --> t${first.index}`);
  c.tiers.slice(1).forEach((t) => lines.push(`  t${t.index - 1} -- "fails again" --> t${t.index}`));
  const last = c.tiers[c.tiers.length - 1];
  if (last) lines.push(`  t${last.index} -- "fails again" --> dlq`);
  lines.push(`  main -- "permanent error${c.tiers.length === 0 ? ' or retries exhausted' : ''}" --> dlq`);
  lines.push(`  dlq -. "krt dlq replay (by hand)" .-> main`);
  return lines.join('\n');
}

export function runbookIndexView(topologies: readonly TopologyModel[]) {
  const consumers = topologies
    .flatMap((t) => t.consumers.map((c) => ({ c, t })))
    .sort((a, b) => (a.c.name < b.c.name ? -1 : 1))
    .map(({ c, t }) => ({
      name: c.name,
      file: runbookFileName(c.name),
      topology: t.name,
      team: t.owner.team,
      onCall: t.owner.onCall,
      criticality: c.criticality,
      mainTopic: c.mainTopic.name,
    }));
  return { notice: GENERATED_NOTICE, consumers };
}
