import type { TopologyModel } from '../../model/types';
import type { Emitter, GeneratedFile } from '../types';
import { GENERATED_NOTICE } from '../types';
import { alertRules } from './alert-rules';
import { valueTemplate } from './humanize';
import { promDuration } from '../../alerts/promql';
import { inhibitRulesDocument, inhibitRulesFileName } from './inhibit-rules';
import { ruleTests } from './rule-tests';
import { yamlText } from './yaml-text';

export { alertRules } from './alert-rules';

export function ruleGroupName(consumer: string): string {
  return `kafka-retry.${consumer}`;
}

export function rulesFileName(topology: string): string {
  return `prometheus/${topology}.rules.yml`;
}

export function ruleTestsFileName(topology: string): string {
  return `prometheus/${topology}.rules.test.yml`;
}

function yamlFile(path: string, document: Readonly<Record<string, unknown>>): GeneratedFile {
  return { path, content: `# ${GENERATED_NOTICE}\n${yamlText(document)}` };
}

function rulesDocument(topology: TopologyModel) {
  return {
    groups: topology.consumers.map((consumer) => ({
      name: ruleGroupName(consumer.name),
      rules: alertRules({ consumer, topology }).map((rule) => ({
        alert: rule.alert,
        expr: rule.expr,
        ...(rule.forMs > 0 ? { for: promDuration(rule.forMs) } : {}),
        ...(rule.keepFiringForMs ? { keep_firing_for: promDuration(rule.keepFiringForMs) } : {}),
        labels: rule.labels,
        annotations: {
          summary: rule.summary,
          description: rule.description(valueTemplate(rule.valueFormat)),
          runbook_url: rule.runbookUrl,
        },
      })),
    })),
  };
}

/**
 * `prometheus/<topology>.rules.yml` and its promtool tests, one rule group per consumer,
 * and the Alertmanager inhibit rules between those alerts.
 */
export const emitPrometheus: Emitter = (model) => model.topologies.flatMap((topology) => [...prometheusFiles(topology)]);

/** The same files of one topology, each built only once the previous one is taken: a large topology's are large (docs/benchmarks.md). */
export function* prometheusFiles(topology: TopologyModel): Generator<GeneratedFile> {
  yield yamlFile(inhibitRulesFileName(topology.name), inhibitRulesDocument(topology));
  yield yamlFile(rulesFileName(topology.name), rulesDocument(topology));
  yield yamlFile(ruleTestsFileName(topology.name), ruleTests(topology, rulesFileName(topology.name).split('/').pop()!));
}
