import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { emitPrometheus } from '../../src/emitters/prometheus';
import { compile } from './specs';
import { promtool } from './tools';

let promtoolPath: string | undefined;

/** One alert's state at one time of a promtool scenario. */
export interface AlertExpectation {
  readonly at: string;
  readonly alert: string;
  /** The labels the firing alert carries (grouped by them), true when it fires at all, false when it must be quiet. */
  readonly firing: boolean | Readonly<Record<string, string>>;
}

/** The alert rules the generator emits for a spec. */
export function rulesFileOf(spec: unknown): string {
  const result = compile(spec);
  expect(result.model).toBeDefined();
  return emitPrometheus(result.model!).find((f) => f.path.endsWith('.rules.yml'))!.content;
}

/** Runs one promtool unit test of `rules`: the series, and which alerts fire (or not) when; promtool's output. */
export function promtoolRun(rules: string, series: Record<string, string>, expectations: readonly AlertExpectation[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-alerts-'));
  try {
    writeFileSync(path.join(dir, 'rules.yml'), rules);
    const tests = {
      rule_files: ['rules.yml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: Object.entries(series).map(([s, values]) => ({ series: s, values })),
          promql_expr_test: expectations.map(({ at, alert, firing }) => {
            const labels = typeof firing === 'object' ? firing : {};
            const by = Object.keys(labels).join(', ');
            const matchers = Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(',');
            return {
              expr: `count by (${by}) (ALERTS{alertname="${alert}",alertstate="firing"})`,
              eval_time: at,
              exp_samples: firing === false ? [] : [{ labels: `{${matchers}}`, value: 1 }],
            };
          }),
        },
      ],
    };
    writeFileSync(path.join(dir, 'tests.yml'), stringify(tests));
    try {
      return execFileSync((promtoolPath ??= promtool()), ['test', 'rules', 'tests.yml'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      const e = error as { stdout: string; stderr: string };
      return `${e.stdout}${e.stderr}`;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Asserts that promtool finds every expectation of the scenario met. */
export function expectAlerts(rules: string, series: Record<string, string>, expectations: readonly AlertExpectation[]): void {
  const output = promtoolRun(rules, series, expectations);
  expect(output).not.toContain('FAILED');
  expect(output).toContain('SUCCESS');
}
