/**
 * A bench child as code runs in service: compiled by tsc to JavaScript and run by node, not
 * through jiti. jiti rewrites what it loads (our TypeScript, and ES modules such as
 * @platformatic/kafka) into code that reads every import through a getter, and the throughput
 * children measured that, the plain loops and the wrapped consumers by different amounts
 * (docs/benchmarks.md, the throughput section).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');
/** Where tsc writes the compiled children (git ignores it). */
const BUILD = path.join(ROOT, '.bench-build');

let built = false;

/** The compiled JavaScript of `bench/<name>.ts`, built (with what it imports) once per run. */
export function compiledChild(name: 'throughput-child'): string {
  if (!built) {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(__dirname, 'tsconfig.compiled.json')], { stdio: ['ignore', 'inherit', 'inherit'] });
    built = true;
  }
  // The child runs from the tree it was compiled from, so its relative paths (src/, scripts/) hold.
  return path.join(BUILD, 'bench', `${name}.js`);
}
