import { ALERTS } from '../../naming';
import type { AlertKey } from '../../naming';
import type { TopologyModel } from '../../model/types';

/** Which alert explains which: while the first fires, Alertmanager holds back the others. */
const EXPLAINS: readonly { readonly source: AlertKey; readonly targets: readonly AlertKey[] }[] = [
  // A stopped service leaves its tiers and its main topic unconsumed.
  { source: 'consumerDown', targets: ['retryTierStuck', 'mainConsumerLag'] },
  // The backlog is the same unhandled records, still paging.
  { source: 'dlqBacklog', targets: ['dlqNewMessages'] },
];

/**
 * Alertmanager `inhibit_rules` for a topology's consumers, to paste or include in the
 * Alertmanager configuration: one page per cause, never the cause and its symptoms.
 */
export function inhibitRulesDocument(topology: TopologyModel) {
  return {
    inhibit_rules: topology.consumers.flatMap((consumer) =>
      EXPLAINS.map(({ source, targets }) => ({
        source_matchers: [`alertname="${ALERTS[source]}"`, `consumer="${consumer.name}"`],
        target_matchers: [`alertname=~"${targets.map((t) => ALERTS[t]).join('|')}"`, `consumer="${consumer.name}"`],
        equal: ['consumer', ...topology.environmentLabels],
      })),
    ),
  };
}

export function inhibitRulesFileName(topology: string): string {
  return `alertmanager/${topology}.inhibit.yml`;
}
