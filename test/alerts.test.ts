import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parse } from 'yaml';
import { ALERT_KEYS, ALERT_MODULES, ALERTS } from '../src/alerts';
import { formatDuration } from '../src/duration';
import { emitPrometheus } from '../src/emitters/prometheus';
import { emitRunbooks } from '../src/emitters/runbook';
import { TEMPLATES_DIR } from '../src/util/templates-dir';
import { alertName } from '../src/naming';
import { CRITICALITIES } from '../src/spec/types';
import { ALERT_DOCS } from '../scripts/docs/alert-tables';
import { REPO_ROOT } from './helpers/project';
import { aConsumer, aTopology, compile } from './helpers/specs';

jest.setTimeout(60_000);

const doc = (name: string) => readFileSync(path.join(REPO_ROOT, 'docs', name), 'utf8');

describe('the list of alert modules', () => {
  it('gives each alert its key and the name the naming module makes of it, the key once', () => {
    expect(ALERT_KEYS).toEqual(ALERT_MODULES.map((alert) => alert.key));
    expect(new Set(ALERT_KEYS).size).toBe(ALERT_KEYS.length);
    for (const alert of ALERT_MODULES) expect([alert.name, ALERTS[alert.key]]).toEqual([alertName(alert.key), alertName(alert.key)]);
    expect(Object.values(ALERTS)).toEqual([
      'KafkaDlqNewMessages',
      'KafkaDlqBacklog',
      'KafkaDlqOldestMessageAge',
      'KafkaRetryTierStuck',
      'KafkaRetryRateSpike',
      'KafkaDlqRecordsExpired',
      'KafkaRetryMainConsumerLag',
      'KafkaRetryConsumerDown',
      'KafkaRetryMonitorDown',
    ]);
  });

  it("lays out each alert's runbook section with its module's own template, and keeps no alert template elsewhere", () => {
    const model = compile(aTopology({ consumers: [aConsumer({ criticality: 'money' })] })).model!;
    const page = emitRunbooks(model)[0]!.content;
    for (const alert of ALERT_MODULES) {
      const section = page.slice(page.indexOf(`## ${alert.name}\n`)).split(/\n## /)[0]!;
      // The template's first words, up to its first field, open the section's body.
      const opening = alert.runbookTemplate.split('{{')[0]!.split('\n')[0]!;
      expect(opening.length).toBeGreaterThan(0);
      expect(section).toContain(opening);
    }
    expect(existsSync(path.join(TEMPLATES_DIR, 'runbook', 'alerts'))).toBe(false);
  });
});

describe('a consumer’s alerts', () => {
  const withTiers = compile(aTopology({ consumers: [aConsumer({ criticality: 'money' })] })).model!;
  const withoutTiers = compile(aTopology({ consumers: [aConsumer({ ordering: 'in-place-only', ladder: undefined })] })).model!;

  const ruleNames = (model: typeof withTiers) => {
    const rules = emitPrometheus(model).find((f) => f.path.endsWith('.rules.yml'))!;
    return [...new Set<string>(parse(rules.content).groups[0].rules.map((r: { alert: string }) => r.alert))];
  };
  const sectionNames = (model: typeof withTiers) => [...emitRunbooks(model)[0]!.content.matchAll(/^## (Kafka\w+)$/gm)].map((m) => m[1]!);

  it.each([
    ['with tiers', withTiers],
    ['without tiers', withoutTiers],
  ])('have a runbook section exactly where they have a rule, %s', (_, model) => {
    expect(sectionNames(model).sort()).toEqual(ruleNames(model).sort());
  });

  it('follow the list: every alert with tiers, the tier alert left out without them', () => {
    expect(sectionNames(withTiers)).toEqual(ALERT_MODULES.map((alert) => alert.name));
    expect(sectionNames(withoutTiers)).toEqual(ALERT_MODULES.map((alert) => alert.name).filter((name) => name !== ALERTS.retryTierStuck));
  });

  it('take each policy from the preset of the consumer’s criticality', () => {
    const consumer = withTiers.topologies[0]!.consumers[0]!;
    expect(Object.keys(consumer.alerts)).toEqual(ALERT_MODULES.map((alert) => alert.key));
    for (const alert of ALERT_MODULES) expect(consumer.alerts[alert.key]).toEqual(alert.presets.money);
  });
});

describe('the docs of the alerts', () => {
  it('say why each alert that explains others holds them back', () => {
    for (const alert of ALERT_MODULES.filter((a) => (a.explains ?? []).length > 0)) expect(alert.docs.explainsBecause).toEqual(expect.stringMatching(/\S/));
  });

  it.each(Object.entries(ALERT_DOCS))('are in docs/%s as `npm run docs:alerts` writes them from the list', (name, withTables) => {
    expect(doc(name)).toBe(withTables(doc(name)));
  });

  it('give the presets table of docs/spec.md as the alert modules state it', () => {
    const cell = (policy: { threshold: number; forMs: number; severity: string }) => `${policy.threshold}${policy.forMs ? ` for ${formatDuration(policy.forMs)}` : ''}, ${policy.severity}`;
    const table = [
      `| alert | threshold unit | ${CRITICALITIES.join(' | ')} |`,
      `|---|---|${CRITICALITIES.map(() => '---|').join('')}`,
      ...ALERT_MODULES.map((alert) => `| \`${alert.key}\` | ${alert.thresholdUnit} | ${CRITICALITIES.map((c) => cell(alert.presets[c])).join(' | ')} |`),
    ].join('\n');
    expect(doc('spec.md')).toContain(`\n${table}\n`);
    expect(doc('spec.md')).toContain(`alerts ${ALERT_MODULES.map((alert) => `\`${alert.key}\``).join(', ')} |`);
  });

  it('describe every alert in docs/alerts.md, in the order of the list', () => {
    const rows = doc('alerts.md').split('\n## The alerts\n')[1]!.split('\n## ')[0]!.split('\n').filter((line) => line.startsWith('| `'));
    expect(rows.map((row) => /^\| `(\w+)`/.exec(row)![1])).toEqual(ALERT_MODULES.map((alert) => alert.name));
  });

  it('give the inhibit table of docs/alerts.md as the alert modules say which alert explains which', () => {
    const rows = doc('alerts.md').split('\n## Inhibit rules\n')[1]!.split('\n## ')[0]!.split('\n').filter((line) => line.startsWith('| `'));
    const documented = rows.map((row) => row.split('|').slice(1, 3).map((cell) => [...cell.matchAll(/`(\w+)`/g)].map((m) => m[1]!)));
    const stated = ALERT_MODULES.filter((alert) => alert.explains).map((alert) => [[alert.name], alert.explains!.map((key) => alertName(key))]);
    expect(documented.sort()).toEqual(stated.sort());
  });
});

describe('an alert module that leaves out a part', () => {
  const fixture = path.join(REPO_ROOT, 'test', 'type-tests', 'alert-modules.ts');

  /** The compile errors of the fixture without its @ts-expect-error directives. */
  function errorsWithoutDirectives(): string[] {
    const config = ts.getParsedCommandLineOfConfigFile(path.join(REPO_ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
    const host = ts.createCompilerHost(config.options);
    const read = host.readFile.bind(host);
    host.readFile = (file) => (path.resolve(file) === fixture ? read(file)!.replaceAll('// @ts-expect-error', '//') : read(file));
    const program = ts.createProgram([fixture], config.options, host);
    return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  }

  it('does not compile: without its runbook facts or text, without a preset for a criticality, naming an alert the list lacks, or a key or name twice', () => {
    const errors = errorsWithoutDirectives();
    expect(errors).toHaveLength(8);
    expect(errors[0]).toContain("Property 'runbook' is missing");
    expect(errors[1]).toContain("Property 'runbookTemplate' is missing");
    expect(errors[2]).toContain("Property 'analytics' is missing");
    expect(errors[3]).toContain('unknownAlertKeys: "dlqNewMessages"');
    expect(errors[4]).toContain('unknownAlertKeys: "dlqBaklog"');
    expect(errors[5]).toContain('duplicateAlertKeys: "dlqBacklog"');
    expect(errors[6]).toContain('duplicateAlertNames: "KafkaRetryTierStuck"');
    expect(errors[7]).toContain(`'"dlqNewMesages"' is not assignable to parameter of type '"dlqBacklog"'`);
  });
});
