import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './helpers/project';

/**
 * CI once saw `krt dlq inspect | head -1` outlive its test by minutes; review h139 saw `krt
 * lag` print its error and never exit. Whatever a command leaves running (a Kafka client's
 * retry timer, a socket still closing), the `krt` process ends once the command is done.
 */
describe('the krt process', () => {
  /** Runs main() from source with `args`, beside a timer that would keep the process alive for good. */
  function krtWithSomethingLeftRunning(args: string[]) {
    const script = path.join(mkdtempSync(path.join(tmpdir(), 'krt-ends-')), 'run.ts');
    writeFileSync(script, `setInterval(() => {}, 1_000);\nrequire(${JSON.stringify(path.join(REPO_ROOT, 'src', 'cli', 'process-main.ts'))}).main(${JSON.stringify(args)});\n`);
    const started = Date.now();
    const run = spawnSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'jiti'), [script], { encoding: 'utf8', timeout: 20_000 });
    return { status: run.status, signal: run.signal, seconds: (Date.now() - started) / 1000, stdout: run.stdout };
  }

  it('ends once a command is done, with its exit code, though something it left would keep it alive', () => {
    const run = krtWithSomethingLeftRunning(['--version']);
    expect({ status: run.status, signal: run.signal, version: /\d+\.\d+\.\d+/.test(run.stdout) }).toEqual({ status: 0, signal: null, version: true });
    expect(run.seconds).toBeLessThan(15);
  }, 90_000);

  it('keeps the exit code of a command that failed', () => {
    expect(krtWithSomethingLeftRunning(['no-such-command']).status).toBe(2);
  }, 90_000);
});
