import { runCli } from '../src/cli/program';
import { ScratchProject } from './helpers/project';

jest.setTimeout(60_000);

/*
 * `--ids` is what a person types: a typo in it is a usage error, said before krt connects
 * (exit 2, as docs/cli.md promises for usage), not a broker-side refusal (exit 1) after a
 * connection to a cluster; and `--ids ""` must not act on no record and say done.
 */
describe('krt dlq replay and discard with --ids that are not record ids', () => {
  const project = new ScratchProject();
  afterAll(() => project.remove());

  async function krt(...args: string[]): Promise<{ code: number; stderr: string }> {
    let stderr = '';
    const code = await runCli(args, {
      cwd: project.dir,
      stdout: () => undefined,
      stderr: (text) => (stderr += text),
      // Nothing listens on port 9: a command that connected would fail there, not with usage.
      env: { KAFKA_BOOTSTRAP_SERVERS: '127.0.0.1:9', KAFKA_SASL_USERNAME: 'billing-dlq-replay', KAFKA_SASL_PASSWORD: 'x', KAFKA_SSL: 'false' },
    });
    return { code, stderr };
  }

  it.each([
    ['replay', ['--ids', '3-17']],
    ['replay', ['--ids', '3:17,oops']],
    ['discard', ['--ids', '3:x', '--reason', 'bad data', '--by', 'me']],
  ])('refuses a malformed id to %s as usage, naming it, before connecting', async (command, flags) => {
    const { code, stderr } = await krt('dlq', command, 'billing-order-confirmed', ...flags);
    expect(stderr).toMatch(/^krt: record ids look like <partition>:<offset>; not /);
    expect(stderr).not.toMatch(/connect|broker/i);
    expect(code).toBe(2);
  });

  it('refuses an --ids that names no record, rather than replaying nothing and saying done', async () => {
    const { code, stderr } = await krt('dlq', 'replay', 'billing-order-confirmed', '--ids', ' , ');
    expect(stderr).toBe('krt: --ids takes record ids, <partition>:<offset>, separated by commas; it was given none\n');
    expect(code).toBe(2);
  });
});
