/**
 * Runs the tool scripts of scripts/tools (and scripts/kafka/fetch.sh) from TypeScript: each
 * fetches or builds its tool once, caches it by version and prints its path. The test set-up
 * and `npm run tour:dlq` share them, so both find the same tools the same way.
 */
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

/**
 * Runs one tool script; returns what it prints (a path, or a version). A failure says which
 * script failed, why that stops the caller (`consequence`), and the script's own message.
 */
export function runToolScript(script: string, consequence: string): string {
  try {
    return execFileSync('bash', [path.resolve(REPO_ROOT, script)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? error).trim();
    throw new Error(`${script} failed; ${consequence}:\n${stderr}`);
  }
}

/** Runs one tool script with its progress shown as it goes (a first build takes minutes); throws its errors. */
async function runToolScriptLive(script: string, consequence: string): Promise<void> {
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
  if (code !== 0) throw new Error(`${script} failed; ${consequence}:\n${stderr.trim().split('\n').slice(-20).join('\n')}`);
}

/** Fetches or builds these tools in turn, their progress on stderr; the first one missing throws its fix. */
export async function prepareTools(scripts: readonly string[], consequence: string): Promise<void> {
  for (const script of scripts) await runToolScriptLive(script, consequence);
}

/** The tool scripts terraformTooling runs. */
export const TERRAFORM_TOOL_SCRIPTS = ['scripts/tools/provider.sh', 'scripts/tools/terraform.sh'] as const;

/**
 * The real Terraform-compatible CLI and the CLI config that points it at the Mongey
 * provider built from its Go module; both built once and cached by version.
 */
export function terraformTooling(consequence: string): { terraform: string; env: NodeJS.ProcessEnv } {
  const cliConfig = runToolScript('scripts/tools/provider.sh', consequence);
  const terraform = runToolScript('scripts/tools/terraform.sh', consequence);
  return { terraform, env: { ...process.env, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' } };
}
