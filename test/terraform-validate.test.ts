import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './helpers/project';
import { terraformTooling } from './helpers/tools';

jest.setTimeout(600_000);

const stacks = readdirSync(path.join(REPO_ROOT, 'generated', 'terraform'));

describe('terraform validate with the real Mongey/kafka provider', () => {
  const { terraform, env } = terraformTooling();
  const work = mkdtempSync(path.join(os.tmpdir(), 'krt-tf-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('finds the committed stacks', () => {
    expect(stacks.sort()).toEqual(['analytics', 'orders']);
  });

  /** `terraform validate -json` of a copy of a stack, after an optional edit of its JSON. */
  function validate(stack: string, copyAs: string, edit: (json: any) => void = () => {}) {
    const dir = path.join(work, copyAs);
    cpSync(path.join(REPO_ROOT, 'generated', 'terraform', stack), dir, { recursive: true });
    const file = path.join(dir, 'cdk.tf.json');
    const json = JSON.parse(readFileSync(file, 'utf8'));
    edit(json);
    writeFileSync(file, JSON.stringify(json));
    const run = (...args: string[]) => execFileSync(terraform, args, { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    run('init', '-backend=false', '-input=false', '-no-color');
    try {
      return JSON.parse(run('validate', '-json', '-no-color'));
    } catch (error) {
      return JSON.parse((error as { stdout: string }).stdout);
    }
  }

  it.each(stacks)('accepts the generated %s stack', (stack) => {
    const result = validate(stack, stack);
    expect(result.diagnostics).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('rejects an attribute the provider does not have, so the real schema is in use', () => {
    const result = validate('orders', 'orders-broken', (json) => {
      json.resource.kafka_topic.orders_confirmed_dlq.retention_ms = 1;
    });
    expect(result.valid).toBe(false);
    expect(result.diagnostics[0].summary).toMatch(/Unsupported argument|Extraneous JSON object property/);
  });
});
