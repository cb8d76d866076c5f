import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Registry } from 'prom-client';
import { serveMonitors } from '../src/cli/monitor-command';
import { createDlqMonitor } from '../src/runtime/monitor';
import type { MonitorPort } from '../src/runtime/monitor-port';
import { eventually } from './helpers/eventually';
import { testDescriptor } from './helpers/kafka';
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

describe('krt monitor, polling', () => {
  it("serves a consumer's gauges while its polls succeed, and none from its first failed poll until one succeeds again", async () => {
    const consumer = testDescriptor('billing', [60]);
    let down = false;
    // A DLQ of 3 unhandled records; every other topic empty.
    const port: MonitorPort = {
      endOffsets: async (topic) => {
        if (down) throw new Error('Connection error: connect ECONNREFUSED');
        return [{ partition: 0, low: '0', high: topic === consumer.dlqTopic ? '3' : '0' }];
      },
      committedOffsets: async () => [],
      timestampsAt: async (_topic, offsets) => new Map(offsets.map((o) => [o.partition, 5_000])),
    };
    const registry = new Registry();
    let output = '';
    const io = { cwd: process.cwd(), stdout: (t: string) => void (output += t), stderr: (t: string) => void (output += t) };
    const exporter = await serveMonitors(io, [{ name: consumer.name, monitor: createDlqMonitor(consumer, { port, registry }) }], registry, { port: 0, host: '127.0.0.1', intervalMs: 10, interval: '10ms' });
    // Health first: the metrics read after it are at least as recent.
    const scrape = async () => {
      const health = (await fetch(`${exporter.url}/healthz`)).status;
      return { health, metrics: await (await fetch(`${exporter.url}/metrics`)).text() };
    };
    const dlqSize = /^kafka_dlq_size\{.*\} (\d+)$/m;
    try {
      expect(await eventually('the gauges', async () => ((await scrape()).health === 200 ? scrape() : undefined))).toMatchObject({ metrics: expect.stringMatching(dlqSize) });
      down = true;
      const failed = await eventually('a failed poll on /healthz', async () => {
        const scraped = await scrape();
        return scraped.health === 503 ? scraped : undefined;
      });
      expect(failed.metrics).not.toMatch(dlqSize);
      expect(output).toContain(`krt monitor: ${consumer.name}: poll failed, retrying in 10ms: Connection error: connect ECONNREFUSED`);
      down = false;
      const back = await eventually('a good poll again', async () => ((await scrape()).health === 200 ? scrape() : undefined));
      expect(dlqSize.exec(back.metrics)?.[1]).toBe('3');
      expect(output).toContain(`krt monitor: ${consumer.name}: polling again`);
    } finally {
      await exporter.stop();
    }
  });
});
