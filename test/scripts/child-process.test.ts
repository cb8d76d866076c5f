import { spawnChild } from '../helpers/child-process';
import { eventually } from '../helpers/eventually';

describe('a child process the tests start', () => {
  it('can be waited for after it has already exited, and says how it died', async () => {
    const child = spawnChild(process.execPath, ['-e', 'console.error("the client is not built here"); process.exit(3)']);
    await eventually('the child to exit', () => (child.process.exitCode !== null ? true : undefined), 10_000);
    await expect(child.exited).resolves.toEqual({ code: 3, signal: null });
    expect(() => child.assertRunning('the worker')).toThrow(/the worker exited \(code 3, signal null\); its stderr ends with:\n.*the client is not built here/);
  });

  it('reports a command that cannot start at all', async () => {
    const child = spawnChild('/nonexistent/worker', []);
    await expect(child.exited).resolves.toEqual({ code: null, signal: null });
    expect(() => child.assertRunning('the worker')).toThrow(/ENOENT/);
  });
});
