import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { formatDuration } from '../src/duration';
import { aclRules } from '../src/model/acls';
import { CRITICALITY_PRESETS } from '../src/model/criticality';
import { DEFAULTS } from '../src/model/defaults';
import { ALERT_KEYS } from '../src/alerts';
import { dlqReaderGroupName } from '../src/naming';
import { CRITICALITIES } from '../src/spec/types';
import { aConsumer, aTopology, compile } from './helpers/specs';
import { REPO_ROOT } from './helpers/project';

const page = (name: string) => readFileSync(path.join(REPO_ROOT, name), 'utf8');
const readme = page('README.md');
const specPage = page('docs/spec.md');
const aclPage = page('docs/acls.md');

describe('the README', () => {
  it('opens with the set-up-and-synth command and the test command', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = firstBlock.split('\n').filter(Boolean).map((line) => line.replace(/\s+#.*$/, ''));
    expect(commands).toEqual(['npm ci && npx krt synth', 'npm test']);
  });

  it("names only npm scripts that package.json has, the DLQ tour's among them (and docs/ too)", () => {
    const scripts = Object.keys((JSON.parse(page('package.json')) as { scripts: Record<string, string> }).scripts);
    const docs = readdirSync(path.join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => page(`docs/${f}`));
    const named = (markdown: string) => [...markdown.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    expect(named(readme)).toContain('tour:dlq');
    expect([readme, ...docs].flatMap(named).filter((name) => !scripts.includes(name))).toEqual([]);
  });

  it.each(['unordered', 'park-by-key'])('explains every ACL the generator grants a %s consumer, row by row (docs/acls.md)', (ordering) => {
    const topology = compile(aTopology({ consumers: [aConsumer({ ordering, group: 'billing' })] })).model!.topologies[0]!;
    const consumer = topology.consumers[0]!;
    // The table's words for each resource of this consumer.
    const resources = new Map<string, string>([
      [consumer.mainTopic.name, 'main topic'],
      ...consumer.tiers.map((t) => [t.name, 'each retry tier'] as [string, string]),
      [consumer.dlq.name, 'DLQ'],
      [consumer.dlqAudit.name, 'DLQ audit log'],
      ...[...Object.values(consumer.groups), dlqReaderGroupName(consumer.groups.replay)].map((g) => [g, `group \`${g.replace(/^billing/, '{group}')}\``] as [string, string]),
    ]);
    const rows = aclPage.split('\n');
    for (const rule of aclRules(topology)) {
      // The drift principal's rows list its many resources in one cell each.
      if (rule.role === 'drift') expect(rows.filter((r) => r.startsWith(`| drift | ${rule.operation} | `) && r.endsWith(` | ${rule.reason} |`))).toHaveLength(1);
      else {
        // The replay principal writes the first tier only: the table names it so.
        const words = rule.role === 'replay' && rule.resourceName === consumer.tiers[0]?.name ? 'first tier' : resources.get(rule.resourceName);
        expect(aclPage).toContain(`| ${rule.role} | ${rule.operation} | ${words} | ${rule.reason} |`);
      }
    }
  });

  it('gives the alert thresholds the criticality presets really use (docs/spec.md)', () => {
    for (const alert of ALERT_KEYS) {
      const row = specPage.split('\n').find((line) => line.startsWith(`| \`${alert}\` |`));
      expect(row).toBeDefined();
      const cells = row!.split('|').map((c) => c.trim()).slice(3, 6);
      expect(cells).toEqual(
        CRITICALITIES.map((criticality) => {
          const { threshold, forMs, severity } = CRITICALITY_PRESETS[criticality][alert];
          return `${threshold}${forMs ? ` for ${formatDuration(forMs)}` : ''}, ${severity}`;
        }),
      );
    }
  });

  it('states the defaults the model applies (docs/spec.md)', () => {
    expect(specPage).toContain(`| \`ladder\` | \`[${DEFAULTS.ladder.map((d) => `'${d}'`).join(', ')}]\``);
    expect(specPage).toContain(`| \`ladder[].retention\` | \`'${DEFAULTS.tierRetention}'\``);
    expect(specPage).toContain(`| \`dlq.retention\` | \`'${DEFAULTS.dlqRetention}'\``);
    expect(specPage).toContain(`| \`inPlace.attempts\` | \`${DEFAULTS.inPlaceAttempts}\``);
    expect(specPage).toContain(`| \`inPlace.backoff\` | \`'${DEFAULTS.inPlaceBackoff}'\``);
    expect(specPage).toContain(`| \`inPlace.maxBackoff\` | \`'${DEFAULTS.inPlaceMaxBackoff}'\``);
    expect(specPage).toContain(`| \`inPlace.jitter\` | \`${DEFAULTS.inPlaceJitter}\``);
    expect(specPage).toContain(`| \`cluster.replicationFactor\` | \`${DEFAULTS.replicationFactor}\``);
    expect(specPage).toContain(`| \`cluster.minInsyncReplicas\` | \`${DEFAULTS.minInsyncReplicas}\``);
    expect(specPage).toContain(`| \`criticality\` | \`'${DEFAULTS.criticality}'\``);
    expect(specPage).toContain(`| \`ordering\` | \`'${DEFAULTS.ordering}'\``);
    expect(specPage).toContain(`| \`headers\` | \`'${DEFAULTS.headers}'\``);
  });
});
