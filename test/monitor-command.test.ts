import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { eventually } from './helpers/eventually';
import { REPO_ROOT, ScratchProject } from './helpers/project';

jest.setTimeout(120_000);

/** A loopback port nothing listens on: a broker that is down. */
async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('krt monitor', () => {
  let project: ScratchProject;
  beforeEach(() => {
    project = new ScratchProject();
  });
  afterEach(() => project.remove());

  it('refuses a port that is not a number, saying what it takes', async () => {
    const result = await project.krt('monitor', '--port', 'http');
    expect(result).toMatchObject({ code: 2, stderr: "krt: --port takes a port number (0 picks a free one), not 'http'\n" });
  });

  it('keeps running when the broker is down: it reports the failure on /healthz and serves no stale gauges', async () => {
    const child = spawn(path.join(REPO_ROOT, 'node_modules', '.bin', 'jiti'), [path.join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'monitor', '--port', '0', '--host', '127.0.0.1', '--interval', '1s'], {
      cwd: project.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: `127.0.0.1:${await closedPort()}`, KAFKA_SASL_USERNAME: 'orders-monitor', KAFKA_SASL_PASSWORD: 'x', KAFKA_SSL: 'false' },
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const port = await eventually('krt monitor to listen', () => {
        if (child.exitCode !== null) throw new Error(`krt monitor exited:\n${output}`);
        const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        return match ? Number(match[1]) : undefined;
      });
      const health = await eventually('a failed poll on /healthz', async () => {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        const body = (await response.json()) as Record<string, { ok: boolean; error?: string }>;
        return response.status === 503 && body['billing-order-confirmed']?.ok === false ? body : undefined;
      }, 90_000);
      expect(health['billing-order-confirmed']!.error).toBeTruthy();
      expect(output).toContain('krt monitor: billing-order-confirmed: poll failed, retrying in 1s');
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).not.toMatch(/^kafka_dlq_size\{/m);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(output).toContain('krt monitor: stopped');
  });
});
