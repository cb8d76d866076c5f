import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/project';
import { prepareTools } from '../helpers/tools';

describe('the tool scripts', () => {
  const cache = mkdtempSync(path.join(os.tmpdir(), 'krt-tools-'));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));

  it('fail at once for a user who is not root when a Debian library is missing, naming the apt-get command that installs it', () => {
    const script = `. ${path.join(REPO_ROOT, 'scripts', 'tools', 'lib.sh')}; debian_packages zlib1g-dev krt-no-such-library`;
    // As root (CI), drop to `nobody`; as anyone else, run as is.
    const [command, args] = process.getuid?.() === 0 ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'bash', '-c', script]] : ['bash', ['-c', script]];
    const started = Date.now();
    const run = spawnSync(command as string, args as string[], { encoding: 'utf8', env: { ...process.env, KRT_TOOLS_DIR: cache }, timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("[krt-tools] error: Debian's krt-no-such-library package(s) are missing; install them as root: apt-get install --no-install-recommends krt-no-such-library");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('run one at a time, so two test runs never build the same tool over each other', async () => {
    const log = path.join(cache, 'order.log');
    const script = path.join(cache, 'slow-build.sh');
    writeFileSync(script, `. ${path.join(REPO_ROOT, 'scripts', 'tools', 'lib.sh')}\necho "start $1" >> ${log}\nsleep 0.3\necho "end $1" >> ${log}\n`);
    const run = (name: string) => new Promise<number | null>((resolve) => spawn('bash', [script, name], { env: { ...process.env, KRT_TOOLS_DIR: cache }, stdio: 'ignore' }).once('close', resolve));
    expect(await Promise.all([run('a'), run('b')])).toEqual([0, 0]);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    // Each build's start is followed by its own end: never "start a, start b".
    expect(lines).toHaveLength(4);
    expect(lines[1]).toBe(lines[0]!.replace('start', 'end'));
    expect(lines[3]).toBe(lines[2]!.replace('start', 'end'));
  });

  it('stop the test set-up at the first tool that cannot be provided, with that script\'s fix in the error', async () => {
    const missing = path.join(cache, 'missing.sh');
    const next = path.join(cache, 'next.sh');
    writeFileSync(missing, `. ${path.join(REPO_ROOT, 'scripts', 'tools', 'lib.sh')}\ndie "kcat is missing; install Debian's kcat package (apt-get install --no-install-recommends kcat)"\n`);
    writeFileSync(next, `touch ${path.join(cache, 'next-ran')}\n`);
    const started = Date.now();
    await expect(prepareTools([missing, next])).rejects.toThrow(`${missing} failed; the tests need the real tool, they are never skipped:\n[krt-tools] error: kcat is missing; install Debian's kcat package (apt-get install --no-install-recommends kcat)`);
    expect(existsSync(path.join(cache, 'next-ran'))).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
