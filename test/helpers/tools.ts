import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './project';

/**
 * Every tool the suite needs, each fetched or built once by its script and cached.
 * The global setup runs them all before any test, so a missing one fails the run at
 * once with the script's own message (which says what to install), instead of tests
 * waiting out their timeouts.
 */
const TOOL_SCRIPTS = [
  'scripts/tools/confluent.sh',
  'scripts/tools/node-pty.sh',
  'scripts/tools/provider.sh',
  'scripts/tools/terraform.sh',
  'scripts/tools/promtool.sh',
  'scripts/tools/pint.sh',
  'scripts/tools/kcat.sh',
  'scripts/tools/chromium.sh',
  'scripts/kafka/fetch.sh',
];

/** Runs one tool script; returns what it prints (a path, or a version). */
function runToolScript(script: string): string {
  try {
    return execFileSync('bash', [path.join(REPO_ROOT, script)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? error).trim();
    throw new Error(`${script} failed; the tests need the real tool, they are never skipped:\n${stderr}`);
  }
}

/** Runs a tool script with its progress shown as it goes (a first build takes minutes); throws its errors. */
async function runToolScriptLive(script: string): Promise<void> {
  const child = spawn('bash', [path.resolve(REPO_ROOT, script)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    process.stderr.write(chunk);
  });
  const code = await new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      stderr += String(error);
      resolve(null);
    });
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`${script} failed; the tests need the real tool, they are never skipped:\n${stderr.trim().split('\n').slice(-20).join('\n')}`);
}

const script = (name: string) => runToolScript(`scripts/tools/${name}`);

/** Fetches or builds every tool the suite needs (or those scripts); the first one missing throws its fix. */
export async function prepareTools(scripts: readonly string[] = TOOL_SCRIPTS): Promise<void> {
  for (const toolScript of scripts) await runToolScriptLive(toolScript);
}

/**
 * The real Terraform-compatible CLI and the CLI config that points it at the Mongey
 * provider built from its Go module; both built once and cached by version.
 */
export function terraformTooling(): { terraform: string; env: NodeJS.ProcessEnv } {
  const cliConfig = script('provider.sh');
  const terraform = script('terraform.sh');
  return { terraform, env: { ...process.env, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' } };
}

/** promtool, from PATH or Debian's prometheus package. */
export function promtool(): string {
  return script('promtool.sh');
}

/** pint, built from its Go module. */
export function pint(): string {
  return script('pint.sh');
}

/** kcat, from PATH or Debian's kcat package: a client we did not write. */
export function kcat(): string {
  return script('kcat.sh');
}

/** Chromium, from PATH or Debian's chromium package: the browser of krt console's end-to-end test. */
export function chromium(): string {
  return script('chromium.sh');
}
