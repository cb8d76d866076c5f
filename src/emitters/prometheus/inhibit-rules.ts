import { ALERT_MODULES, explanationsOf } from '../../alerts';
import { alertName } from '../../naming';
import type { TopologyModel } from '../../model/types';

/**
 * Which alert explains which, as each alert module says: while one fires, Alertmanager holds
 * back the others. Alertmanager reads every rule whatever the order; for the reader, the
 * cause that explains the most comes first.
 */
const EXPLAINS = explanationsOf(ALERT_MODULES);

/**
 * Alertmanager `inhibit_rules` for a topology's consumers, to paste or include in the
 * Alertmanager configuration: one page per cause, never the cause and its symptoms.
 */
export function inhibitRulesDocument(topology: TopologyModel) {
  return {
    inhibit_rules: topology.consumers.flatMap((consumer) =>
      EXPLAINS.map(({ source, targets }) => ({
        source_matchers: [`alertname="${alertName(source)}"`, `consumer="${consumer.name}"`],
        target_matchers: [`alertname=~"${targets.map((t) => alertName(t)).join('|')}"`, `consumer="${consumer.name}"`],
        equal: ['consumer', ...topology.environmentLabels],
      })),
    ),
  };
}

export function inhibitRulesFileName(topology: string): string {
  return `alertmanager/${topology}.inhibit.yml`;
}
