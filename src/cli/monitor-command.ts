import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { compileFiles } from '../compile';
import { kafkaReadingTopicIdsFromEnv } from '../connection/topic-ids';
import { KAFKA_ENV } from '../naming';
import { durationToMs, parseDuration } from '../duration';
import { consumerDescriptor } from '../model/consumer-descriptor';
import { kafkajsMonitorPort } from '../runtime/adapters/kafkajs-monitor';
import { createDlqMonitor } from '../runtime/monitor';
import type { DlqMonitor } from '../runtime/monitor';
import { startPollLoop } from '../runtime/monitor-loop';
import { EXIT } from './io';
import type { CliIo } from './io';
import { listenFailure } from './listen-error';
import { monitorPrincipalWarning } from './monitor-principals';
import { reportDiagnostics } from './report';
import { stoppedWithin, untilSignal } from './serve-until-signal';
import { resolveTopologyFiles, UsageError } from './topology-files';
import { portOption } from './port-option';

export interface MonitorCommandOptions {
  readonly port: string;
  readonly host: string;
  readonly interval: string;
}

export const MONITOR_PATHS = { metrics: '/metrics', health: '/healthz' } as const;

interface PollStatus {
  readonly at: string;
  readonly ok: boolean;
  readonly error?: string;
}

function intervalOf(text: string): number {
  const parsed = parseDuration(text);
  if (!parsed.ok) throw new UsageError(`--interval takes a duration such as 30s or 1m: ${parsed.reason}`);
  return durationToMs(text);
}

/**
 * `krt monitor`: the DLQ and tier monitor of every consumer of the topologies, as one
 * exporter process (like kafka-lag-exporter), independent of the services. It polls at
 * once and then every interval, one poll after the other, and keeps running whatever the
 * broker does: a failed poll is reported on stderr and on the health path, and drops
 * that consumer's gauges, so Prometheus sees the monitor as down rather than stale.
 */
export async function monitorCommand(io: CliIo, files: string[], options: MonitorCommandOptions): Promise<number> {
  const port = portOption(options.port);
  const intervalMs = intervalOf(options.interval);
  const result = await compileFiles(resolveTopologyFiles(io.cwd, files), io.cwd);
  if (reportDiagnostics(io, result) || !result.model) return EXIT.problems;
  const consumers = result.model.topologies.flatMap((t) => t.consumers);
  const env = io.env ?? process.env;
  const kafka = kafkaReadingTopicIdsFromEnv(env, 'krt-monitor');
  const registry = new Registry();
  const monitors = consumers.map((consumer) => ({
    name: consumer.name,
    monitor: createDlqMonitor(consumerDescriptor(consumer), {
      port: kafkajsMonitorPort(kafka, consumer.groups.monitor),
      registry,
      // A poll that succeeds in part (a head record not read in time: the gauges kept) says so.
      onError: (error) => io.stderr(`krt monitor: ${consumer.name}: ${error instanceof Error ? error.message : String(error)}\n`),
    }),
  }));
  const exporter = await serveMonitors(io, monitors, registry, { port, host: options.host, intervalMs, interval: options.interval });
  // Once it serves (a port in use is said alone), before the first poll can answer.
  const warning = monitorPrincipalWarning(result.model.topologies, env[KAFKA_ENV.saslUsername]);
  if (warning) io.stderr(warning);
  await untilSignal();
  if (!(await stoppedWithin(io, 'krt monitor', () => exporter.stop()))) return EXIT.problems;
  io.stdout('krt monitor: stopped\n');
  return EXIT.ok;
}

export interface MonitorExporter {
  readonly url: string;
  /** Stops polling and serving; resolves once the poll in flight and the server have ended. */
  stop(): Promise<void>;
}

/**
 * Serves the monitors' registry and their health, polling them in the shared poll loop:
 * a failed poll is reported on stderr and on the health path, and its consumer's gauges
 * are gone from the metrics path until a poll succeeds again.
 */
export async function serveMonitors(
  io: CliIo,
  monitors: readonly { readonly name: string; readonly monitor: DlqMonitor }[],
  registry: Registry,
  options: { readonly port: number; readonly host: string; readonly intervalMs: number; readonly interval: string },
): Promise<MonitorExporter> {
  const status = new Map<string, PollStatus>();
  const server = http.createServer((request, response) => {
    void (async () => {
      if (request.url === MONITOR_PATHS.metrics) {
        response.writeHead(200, { 'Content-Type': registry.contentType }).end(await registry.metrics());
      } else if (request.url === MONITOR_PATHS.health) {
        const healthy = monitors.every(({ name }) => status.get(name)?.ok === true);
        response.writeHead(healthy ? 200 : 503, { 'Content-Type': 'application/json' }).end(JSON.stringify(Object.fromEntries(status), null, 2));
      } else {
        response.writeHead(404).end(`krt monitor serves ${MONITOR_PATHS.metrics} and ${MONITOR_PATHS.health}\n`);
      }
    })().catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port, options.host, resolve)).catch((error: unknown) => {
    throw listenFailure('krt monitor', options.host, options.port, error);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.address}:${address.port}`;
  io.stdout(`krt monitor: ${monitors.length} consumer${monitors.length === 1 ? '' : 's'} (${monitors.map((m) => m.name).join(', ')}); serving ${url}${MONITOR_PATHS.metrics} and ${MONITOR_PATHS.health}, polling every ${options.interval}\n`);

  const loop = startPollLoop(
    monitors.map(({ name, monitor }) => ({ name, poll: (signal?: AbortSignal) => monitor.poll(signal) })),
    {
      intervalMs: options.intervalMs,
      onPoll: ({ name }, outcome) => {
        if (outcome.ok) {
          if (status.get(name)?.ok === false) io.stderr(`krt monitor: ${name}: polling again\n`);
          status.set(name, { at: new Date().toISOString(), ok: true });
        } else {
          const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
          io.stderr(`krt monitor: ${name}: poll failed, retrying in ${options.interval}: ${message}\n`);
          status.set(name, { at: new Date().toISOString(), ok: false, error: message });
        }
      },
    },
  );
  return {
    url,
    async stop() {
      await Promise.all([loop.stop(), new Promise<void>((resolve) => server.close(() => resolve()))]);
    },
  };
}
