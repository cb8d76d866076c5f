import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from './helpers/project';
import { pint, promtool } from './helpers/tools';

jest.setTimeout(600_000);

const generated = path.join(REPO_ROOT, 'generated', 'prometheus');
const rulesFiles = readdirSync(generated).filter((f) => f.endsWith('.rules.yml')).sort();
const testFiles = readdirSync(generated).filter((f) => f.endsWith('.rules.test.yml')).sort();

function run(tool: string, args: string[], cwd: string): { code: number; output: string } {
  try {
    return { code: 0, output: execFileSync(tool, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { code: e.status, output: `${e.stdout}${e.stderr}` };
  }
}

/** A scratch copy of generated/prometheus, to break on purpose. */
function scratchCopy(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-prom-'));
  cpSync(generated, dir, { recursive: true });
  return dir;
}

describe('the generated Prometheus rules, checked by the real tools', () => {
  const promtoolPath = promtool();
  const pintPath = pint();

  it('has a rules file and a test file per example topology', () => {
    expect(rulesFiles).toEqual(['analytics.rules.yml', 'orders.rules.yml']);
    expect(testFiles).toEqual(['analytics.rules.test.yml', 'orders.rules.test.yml']);
  });

  it('passes promtool check rules', () => {
    const result = run(promtoolPath, ['check', 'rules', ...rulesFiles], generated);
    expect(result.output).not.toContain('FAILED');
    expect(result.code).toBe(0);
  });

  it('passes promtool test rules: every alert fires in its firing case and stays quiet in its quiet case', () => {
    const result = run(promtoolPath, ['test', 'rules', ...testFiles], generated);
    expect(result.output).not.toContain('FAILED');
    expect(result.code).toBe(0);
  });

  it('passes promtool test rules on the golden scenario of a standard consumer too', () => {
    const golden = path.join(REPO_ROOT, 'test', 'golden', 'prometheus');
    const result = run(promtoolPath, ['test', 'rules', 'orders.rules.test.yml'], golden);
    expect(result.output).not.toContain('FAILED');
    expect(result.code).toBe(0);
  });

  it('passes pint lint with the rules that require severity, summary and runbook_url', () => {
    const result = run(pintPath, ['--no-color', '-c', path.join(REPO_ROOT, 'test', 'pint.hcl'), 'lint', ...rulesFiles], generated);
    expect(result.output).not.toMatch(/Bug:|Warning:/);
    expect(result.code).toBe(0);
  });

  it('gives every alert rule of every consumer one firing and one quiet test', () => {
    for (const file of rulesFiles) {
      const rules = parse(readFileSync(path.join(generated, file), 'utf8')).groups.flatMap((g: { rules: unknown[] }) => g.rules);
      const tests = parse(readFileSync(path.join(generated, file.replace('.rules.yml', '.rules.test.yml')), 'utf8')).tests;
      expect(tests).toHaveLength(rules.length * 2);
      const firing = tests.filter((t: any) => t.alert_rule_test[0].exp_alerts.length === 1);
      const quiet = tests.filter((t: any) => t.alert_rule_test[0].exp_alerts.length === 0);
      expect(firing).toHaveLength(rules.length);
      expect(quiet).toHaveLength(rules.length);
      const alertNames = rules.map((r: { alert: string }) => r.alert).sort();
      expect(firing.map((t: any) => t.alert_rule_test[0].alertname).sort()).toEqual(alertNames);
      expect(quiet.map((t: any) => t.alert_rule_test[0].alertname).sort()).toEqual(alertNames);
    }
  });

  describe('catches broken rules', () => {
    let dir: string;
    beforeEach(() => {
      dir = scratchCopy();
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const edit = (file: string, from: string, to: string) => {
      const text = readFileSync(path.join(dir, file), 'utf8');
      expect(text).toContain(from);
      writeFileSync(path.join(dir, file), text.replace(from, to));
    };

    it('fails the rule tests when a money DLQ would need two records to page', () => {
      edit('orders.rules.yml', '[10m]))) >= 1', '[10m]))) >= 2');
      const result = run(promtoolPath, ['test', 'rules', 'orders.rules.test.yml'], dir);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('FAILED');
    });

    it('fails the rule tests when an alert loses its runbook link', () => {
      edit('analytics.rules.yml', '#kafkadlqbacklog', '#backlog');
      const result = run(promtoolPath, ['test', 'rules', 'analytics.rules.test.yml'], dir);
      expect(result.code).not.toBe(0);
    });

    it('fails pint when an alert has no summary', () => {
      edit('orders.rules.yml', '          summary: The DLQ of billing-order-confirmed is receiving records\n', '');
      const result = run(pintPath, ['--no-color', '-c', path.join(REPO_ROOT, 'test', 'pint.hcl'), 'lint', 'orders.rules.yml'], dir);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain('`summary` annotation is required');
    });
  });
});
