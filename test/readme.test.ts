import { readFileSync } from 'node:fs';
import path from 'node:path';
import { formatDuration } from '../src/duration';
import { aclRules } from '../src/model/acls';
import { CRITICALITY_PRESETS } from '../src/model/criticality';
import { DEFAULTS } from '../src/model/defaults';
import { ALERT_KEYS } from '../src/naming';
import { CRITICALITIES } from '../src/spec/types';
import { aTopology, compile } from './helpers/specs';
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

  it('explains every ACL the generator grants (docs/acls.md)', () => {
    const reasons = new Set(aclRules(compile(aTopology()).model!.topologies[0]!).map((r) => `| ${r.role} | ${r.operation} |`));
    for (const row of reasons) expect(aclPage).toContain(row);
    for (const rule of aclRules(compile(aTopology()).model!.topologies[0]!)) expect(aclPage).toContain(`| ${rule.reason} |`);
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
