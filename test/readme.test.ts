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

const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

describe('the README', () => {
  it('opens with the set-up-and-synth command and the test command', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = firstBlock.split('\n').filter(Boolean).map((line) => line.replace(/\s+#.*$/, ''));
    expect(commands).toEqual(['npm ci && npx krt synth', 'npm test']);
  });

  it('explains every ACL the generator grants', () => {
    const reasons = new Set(aclRules(compile(aTopology()).model!.topologies[0]!).map((r) => `| ${r.role} | ${r.operation} |`));
    for (const row of reasons) expect(readme).toContain(row);
    for (const rule of aclRules(compile(aTopology()).model!.topologies[0]!)) expect(readme).toContain(`| ${rule.reason} |`);
  });

  it('gives the alert thresholds the criticality presets really use', () => {
    for (const alert of ALERT_KEYS) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${alert}\` |`));
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

  it('states the defaults the model applies', () => {
    expect(readme).toContain(`| \`ladder\` | \`[${DEFAULTS.ladder.map((d) => `'${d}'`).join(', ')}]\``);
    expect(readme).toContain(`| \`ladder[].retention\` | \`'${DEFAULTS.tierRetention}'\``);
    expect(readme).toContain(`| \`dlq.retention\` | \`'${DEFAULTS.dlqRetention}'\``);
    expect(readme).toContain(`| \`inPlace.attempts\` | \`${DEFAULTS.inPlaceAttempts}\``);
    expect(readme).toContain(`| \`inPlace.backoff\` | \`'${DEFAULTS.inPlaceBackoff}'\``);
    expect(readme).toContain(`| \`inPlace.maxBackoff\` | \`'${DEFAULTS.inPlaceMaxBackoff}'\``);
    expect(readme).toContain(`| \`inPlace.jitter\` | \`${DEFAULTS.inPlaceJitter}\``);
    expect(readme).toContain(`| \`cluster.replicationFactor\` | \`${DEFAULTS.replicationFactor}\``);
    expect(readme).toContain(`| \`cluster.minInsyncReplicas\` | \`${DEFAULTS.minInsyncReplicas}\``);
    expect(readme).toContain(`| \`criticality\` | \`'${DEFAULTS.criticality}'\``);
    expect(readme).toContain(`| \`ordering\` | \`'${DEFAULTS.ordering}'\``);
    expect(readme).toContain(`| \`headers\` | \`'${DEFAULTS.headers}'\``);
  });
});
