import type { TopologyModel } from '../../model/types';
import { alertRules } from './alert-rules';
import { FORMATTERS } from './humanize';
import type { AlertRule, RuleScenario } from '../../alerts';

/** The value every environment label has in the tests: one environment, kept through every rule. */
const TEST_ENVIRONMENT = 'prod';

/** A promtool test case: the scenario's series and what the alert must do at evalTime. */
function testCase(rule: AlertRule, scenario: RuleScenario, environmentLabels: readonly string[]) {
  const fires = scenario.value !== undefined;
  const environment = Object.fromEntries(environmentLabels.map((label) => [label, TEST_ENVIRONMENT]));
  const inEnvironment = (series: string) => series.replace(/\}$/, environmentLabels.map((label) => `,${label}="${TEST_ENVIRONMENT}"`).join('') + '}');
  return {
    name: `${rule.labels.consumer}: ${scenario.name}`,
    interval: scenario.interval,
    input_series: scenario.series.map((s) => ({ series: inEnvironment(s.series), values: s.values })),
    alert_rule_test: [
      {
        eval_time: scenario.evalTime,
        alertname: rule.alert,
        exp_alerts: fires
          ? [
              {
                exp_labels: { ...environment, ...rule.labels },
                exp_annotations: {
                  summary: rule.summary,
                  description: rule.description(FORMATTERS[rule.valueFormat](scenario.value!)),
                  runbook_url: rule.runbookUrl,
                },
              },
            ]
          : [],
      },
    ],
  };
}

/** For every alert rule of every consumer, one case that fires it and one that keeps it quiet. */
export function ruleTests(topology: TopologyModel, rulesFile: string) {
  return {
    rule_files: [rulesFile],
    evaluation_interval: '1m',
    tests: topology.consumers.flatMap((consumer) =>
      alertRules({ consumer, topology }).flatMap((rule) => [
        testCase(rule, rule.firing, topology.environmentLabels),
        testCase(rule, rule.quiet, topology.environmentLabels),
      ]),
    ),
  };
}
