import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../../scripts/kafka/broker';
import { eventually } from './eventually';

/** Debian's prometheus package puts the server here (DESIGN.md: real parts used by tests). */
export const PROMETHEUS_BINARY = process.env.PROMETHEUS_BINARY ?? '/usr/bin/prometheus';

export interface ScrapeTarget {
  /** The `job` label of the target's series. */
  readonly job: string;
  /** `host:port`; the metrics path is /metrics. */
  readonly address: string;
}

export interface PrometheusOptions {
  readonly ruleFiles: readonly string[];
  readonly targets: readonly ScrapeTarget[];
  /** Short, so a test sees a change within seconds; default 1s. */
  readonly scrapeInterval?: string;
  readonly evaluationInterval?: string;
}

/** An alert as /api/v1/alerts lists it. */
export interface PrometheusAlert {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly state: 'pending' | 'firing';
  readonly value: string;
}

export interface PrometheusServer {
  readonly url: string;
  /** An instant query; the result vector's samples. */
  query(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  /** Every pending or firing alert. */
  alerts(): Promise<PrometheusAlert[]>;
  stop(): Promise<void>;
}

async function api<T>(url: string): Promise<T> {
  const response = await fetch(url);
  const body = (await response.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`Prometheus answered ${url} with ${body.error ?? response.status}`);
  return body.data;
}

/**
 * Starts the real Prometheus server on a free loopback port, with its own config and
 * data directory, loading the given rule files and scraping the given targets. Fails at
 * once, with the fix, when the binary is missing or the server exits.
 */
export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  if (!existsSync(PROMETHEUS_BINARY)) {
    throw new Error(`no Prometheus server at ${PROMETHEUS_BINARY}: install Debian's prometheus package (apt-get install prometheus) or set PROMETHEUS_BINARY; the real server is required, not skipped`);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-prometheus-'));
  const config = {
    global: { scrape_interval: options.scrapeInterval ?? '1s', evaluation_interval: options.evaluationInterval ?? '1s' },
    rule_files: options.ruleFiles.map((f) => path.resolve(f)),
    scrape_configs: options.targets.map((t) => ({ job_name: t.job, static_configs: [{ targets: [t.address] }] })),
  };
  writeFileSync(path.join(dir, 'prometheus.yml'), stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  let exited: string | undefined;
  const child: ChildProcess = spawn(
    PROMETHEUS_BINARY,
    [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.once('exit', (code, signal) => (exited = `Prometheus exited (${code ?? signal}):\n${output}`));

  const stop = async () => {
    if (exited === undefined) {
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await done;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually('Prometheus to be ready', async () => {
      if (exited !== undefined) throw new Error(exited);
      const ready = await fetch(`${url}/-/ready`).catch(() => undefined);
      return ready?.ok ? true : undefined;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    query: (expr) => api(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`).then((d) => (d as { result: { metric: Record<string, string>; value: [number, string] }[] }).result),
    alerts: () => api<{ alerts: PrometheusAlert[] }>(`${url}/api/v1/alerts`).then((d) => d.alerts),
    stop,
  };
}
