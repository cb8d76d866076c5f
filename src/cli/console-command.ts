import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { compileFiles } from '../compile';
import { discoverTopologyFiles } from '../load/load-topologies';
import type { TopologyModel } from '../model/types';
import { KAFKA_ENV, principalName } from '../naming';
import { EXIT } from './io';
import type { CliIo } from './io';
import { listenFailure } from './listen-error';
import { reportDiagnostics } from './report';
import { stoppedWithin, untilSignal } from './serve-until-signal';
import { portOption } from './port-option';

export interface ConsoleCommandOptions {
  readonly port: string;
  readonly host: string;
  readonly readOnly: boolean;
  readonly grafanaUrl?: string;
  readonly by?: string;
}

export const CONSOLE_PRINCIPAL = { command: 'krt console', principal: "the topology's replay principal" };

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const EVERY_ADDRESS = new Set(['0.0.0.0', '::']);

/** The Host headers a browser sends to this address: anything else is another site's name for it. */
function allowedHosts(host: string, port: number, anyHost: string): Set<string> {
  if (EVERY_ADDRESS.has(host)) return new Set([anyHost]);
  const hosts = new Set([`${host.includes(':') ? `[${host}]` : host}:${port}`]);
  if (LOOPBACK.has(host)) for (const name of ['127.0.0.1', 'localhost', '[::1]']) hosts.add(`${name}:${port}`);
  return hosts;
}

/** Replay and discard need the replay principal's credentials; anyone else reads only. */
function readOnlyReasonOf(topologies: readonly TopologyModel[], user: string | undefined, readOnly: boolean) {
  const owner = new Map(topologies.flatMap((t) => t.consumers.map((c) => [c.name, t] as const)));
  return (consumer: { name: string }) => {
    if (readOnly) return 'krt console was started with --read-only';
    const topology = owner.get(consumer.name)!;
    const replay = principalName(topology.principals.replay);
    return user === replay ? undefined : `started as ${user ?? '(nobody)'}, not as ${replay}, the replay principal of ${topology.name}; restart krt console with its credentials to replay or discard`;
  };
}

/**
 * `krt console`: the DLQ tools of `krt dlq` as a local web app, for every consumer of the
 * topologies, guarded by a session token printed at start. Runs until SIGINT or SIGTERM;
 * a replay or discard still running ends after the part in hand (Jobs.stop), then the
 * reader members leave.
 */
export async function consoleCommand(io: CliIo, options: ConsoleCommandOptions): Promise<number> {
  const port = portOption(options.port);
  const result = await compileFiles(discoverTopologyFiles(io.cwd), io.cwd);
  if (reportDiagnostics(io, result) || !result.model) return EXIT.problems;
  // Required here, not at the top: the server and the Kafka client weigh on every other command's start.
  const { newSessionToken } = require('../console/auth') as typeof import('../console/auth');
  const { kafkaConsoleDlq } = require('../console/kafka-dlq') as typeof import('../console/kafka-dlq');
  const { ANY_HOST, buildConsoleServer } = require('../console/server') as typeof import('../console/server');
  const { explainKafkaError } = require('../connection/kafka-connection') as typeof import('../connection/kafka-connection');
  const { kafkaReadingTopicIdsFromEnv } = require('../connection/topic-ids') as typeof import('../connection/topic-ids');
  const env = io.env ?? process.env;
  const kafka = kafkaReadingTopicIdsFromEnv(env, 'krt-console', io.stderr);
  const token = newSessionToken();
  const hosts = new Set<string>();
  const dlq = kafkaConsoleDlq(kafka);
  const app = buildConsoleServer({
    topologies: result.model.topologies,
    dlq,
    token,
    allowedHosts: hosts,
    readOnlyReason: readOnlyReasonOf(result.model.topologies, env[KAFKA_ENV.saslUsername], options.readOnly),
    explain: (error) => explainKafkaError(error, env, CONSOLE_PRINCIPAL),
    grafanaUrl: options.grafanaUrl,
    operator: options.by ?? env.USER ?? os.userInfo().username,
  });
  await app.listen({ port, host: options.host }).catch((error: unknown) => {
    throw listenFailure('krt console', options.host, port, error);
  });
  // Joining a reader group waits out the broker's initial rebalance delay (3 s by default): done now, not on the first page.
  dlq.warm?.(result.model.topologies.flatMap((t) => t.consumers));
  const bound = (app.server.address() as AddressInfo).port;
  for (const host of allowedHosts(options.host, bound, ANY_HOST)) hosts.add(host);
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
  if (!LOOPBACK.has(options.host)) io.stderr(`krt console: listening on ${options.host}, not only this machine: anyone who can reach it and learns the token can use the console\n`);
  io.stdout(`krt console: serving the DLQs of ${result.model.topologies.flatMap((t) => t.consumers).length} consumers as ${env[KAFKA_ENV.saslUsername]}${options.readOnly ? ', read-only' : ''}. Open:\n`);
  io.stdout(`    http://${shown}:${bound}/?token=${token}\n`);
  await untilSignal();
  if (!(await stoppedWithin(io, 'krt console', () => app.close()))) return EXIT.problems;
  io.stdout('krt console: stopped\n');
  return EXIT.ok;
}
