import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Whether the checkout's last commit holds `file` (a path under `cwd`): the output folder was
 * committed, so a snapshot missing from the working tree with no manifest beside it was
 * deleted (`rm -rf generated`), not never made. Only asked when both are missing, so a synth
 * spawns git at most once, before its first output. False when `cwd` is no git checkout or git
 * is not installed: then nothing tells a deleted folder from a first synth.
 */
export function snapshotInHead(file: string, cwd: string): boolean {
  const relative = path.relative(cwd, file).split(path.sep).join('/');
  try {
    execFileSync('git', ['cat-file', '-e', `HEAD:./${relative}`], { cwd, stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
