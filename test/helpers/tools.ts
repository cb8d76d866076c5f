import { prepareTools as prepareToolScripts, runToolScript, terraformTooling as sharedTerraformTooling } from '../../scripts/tools/tool-scripts';

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

/** Why a missing tool fails the run, in every tool error the tests raise. */
const TESTS_NEED_IT = 'the tests need the real tool, they are never skipped';

const script = (name: string) => runToolScript(`scripts/tools/${name}`, TESTS_NEED_IT);

/** Fetches or builds every tool the suite needs (or those scripts); the first one missing throws its fix. */
export async function prepareTools(scripts: readonly string[] = TOOL_SCRIPTS): Promise<void> {
  await prepareToolScripts(scripts, TESTS_NEED_IT);
}

/**
 * The real Terraform-compatible CLI and the CLI config that points it at the Mongey
 * provider built from its Go module; both built once and cached by version.
 */
export function terraformTooling(): { terraform: string; env: NodeJS.ProcessEnv } {
  return sharedTerraformTooling(TESTS_NEED_IT);
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
