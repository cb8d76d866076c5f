import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './project';

function script(name: string): string {
  try {
    return execFileSync('bash', [path.join(REPO_ROOT, 'scripts', 'tools', name)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`scripts/tools/${name} failed; the real tool is required, not skipped:\n${stderr}`);
  }
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
