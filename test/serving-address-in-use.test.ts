import net from 'node:net';
import { runCli } from '../src/cli/program';
import { ScratchProject } from './helpers/project';

jest.setTimeout(60_000);

/*
 * krt console and krt monitor listen on --host:--port. An address already taken is the
 * user's to change, not a crash of krt: a sentence and the usage exit code, not
 * "internal error, please report it" and exit 70.
 */
describe.each(['console', 'monitor'])('krt %s on a port already in use', (command) => {
  const project = new ScratchProject();
  let taken: net.Server;
  let port: number;
  beforeAll(async () => {
    taken = net.createServer();
    port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as net.AddressInfo).port)));
  });
  afterAll(async () => {
    await new Promise((resolve) => taken.close(resolve));
    project.remove();
  });

  it('says the address is in use and which flag chooses another, with exit code 2', async () => {
    let stderr = '';
    const code = await runCli([command, '--port', String(port), '--host', '127.0.0.1'], {
      cwd: project.dir,
      stdout: () => undefined,
      stderr: (text) => (stderr += text),
      env: { KAFKA_BOOTSTRAP_SERVERS: '127.0.0.1:9', KAFKA_SASL_USERNAME: 'orders-monitor', KAFKA_SASL_PASSWORD: 'x', KAFKA_SSL: 'false' },
    });
    expect(stderr).toBe(`krt: krt ${command} cannot listen on 127.0.0.1:${port}: the address is already in use; choose another --port (0 picks a free one) or stop what listens there\n`);
    expect(code).toBe(2);
  });
});
