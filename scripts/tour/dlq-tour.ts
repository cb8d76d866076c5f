/**
 * `npm run tour:dlq`: the DLQ console on a real broker, from a fresh checkout, in one command.
 *
 *  1. starts the test broker (as `npm run kafka:start` does, with the example principals as
 *     users), or uses the one KAFKA_BOOTSTRAP_SERVERS names;
 *  2. creates the example topologies' main topics and applies their generated Terraform
 *     stacks (topics and ACLs) with the real provider, as the test set-up does;
 *  3. runs the example billing service on six orders: two are charged, four end in
 *     orders.confirmed.dlq (see dead-letters.ts);
 *  4. starts `krt console` as the orders topology's replay principal and prints its URL;
 *     Ctrl-C stops the console and the broker started here.
 *
 *   npm run tour:dlq [-- --port <port>]    the console on this port (default 8686)
 *   npm run tour:dlq -- --no-console       steps 1-3, then print the console's command; the broker keeps running
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { applyExampleStacks, exampleModel, exampleUsers, terraformRootFromEnv } from '../kafka/example-stacks';
import { DEFAULT_BROKER_DIR, passwordOf, readBrokerInfo, startBroker, stopBroker } from '../kafka/broker';
import { prepareTools, TERRAFORM_TOOL_SCRIPTS } from '../tools/tool-scripts';
import { principalName } from '../../src/naming';
import { deadLettersFromBillingService } from './dead-letters';
import { processAlive } from '../kafka/process-alive';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(REPO_ROOT, 'dist', 'cli', 'main.js');
const TOOLS_NEEDED = 'the tour runs the real broker and Terraform provider';

const log = (line: string) => process.stderr.write(`[tour] ${line}\n`);

/** A mistake the user can fix: printed as one sentence, no stack. */
class TourError extends Error {}

interface TourOptions {
  readonly console: boolean;
  readonly port: number;
}

function parseArgs(args: readonly string[]): TourOptions {
  let console = true;
  let port = 8686;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--no-console') console = false;
    else if (arg === '--port' && /^\d+$/.test(args[i + 1] ?? '') && Number(args[i + 1]) <= 65535) port = Number(args[++i]);
    else throw new TourError(`unknown argument '${arg}'; usage: npm run tour:dlq [-- --port <port>] [-- --no-console]`);
  }
  return { console, port };
}

/** Whether something listens on this port of 127.0.0.1 already. */
function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(true));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(false)));
  });
}

/** Checks what would stop the tour half-way, before anything starts. */
async function preflight(options: TourOptions): Promise<void> {
  if (!options.console) return;
  if (!existsSync(CLI)) throw new TourError(`${path.relative(REPO_ROOT, CLI)} is missing: npm ci builds it (or npm run build)`);
  if (options.port !== 0 && (await portInUse(options.port))) throw new TourError(`port ${options.port} is in use (another krt console?); stop it, or give the console another: npm run tour:dlq -- --port ${options.port + 1}`);
}

/** The broker of the tour: the one KAFKA_BOOTSTRAP_SERVERS names, or a fresh one started here. */
async function broker(users: readonly string[]): Promise<{ bootstrapServers: string; startedIn?: string }> {
  const given = process.env.KAFKA_BOOTSTRAP_SERVERS;
  if (given) {
    log(`using the broker at ${given} (KAFKA_BOOTSTRAP_SERVERS): its users must be the example principals with password <user>-secret, as the test broker has them`);
    return { bootstrapServers: given };
  }
  const running = readBrokerInfo(DEFAULT_BROKER_DIR);
  if (running && processAlive(running.pid)) {
    throw new TourError(`a broker already runs from ${DEFAULT_BROKER_DIR} (pid ${running.pid}): stop it with npm run kafka:stop, or take the tour on it: KAFKA_BOOTSTRAP_SERVERS=${running.bootstrapServers} npm run tour:dlq`);
  }
  log(`starting a Kafka broker in ${DEFAULT_BROKER_DIR} (users: the example principals, password <user>-secret)`);
  const info = await startBroker({ dir: DEFAULT_BROKER_DIR, users });
  log(`Kafka runs at ${info.bootstrapServers} (pid ${info.pid})`);
  return { bootstrapServers: info.bootstrapServers, startedIn: info.dir };
}

/** A dead letter's line: a zod message spans many lines. */
function oneLine(text: string, max = 150): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}


async function tour(options: TourOptions): Promise<void> {
  await preflight(options);
  log('fetching or building the tools: the Apache Kafka jars (Maven), the Terraform provider and OpenTofu (Go); the first run takes several minutes, later ones a second');
  await prepareTools(['scripts/kafka/fetch.sh', ...TERRAFORM_TOOL_SCRIPTS], TOOLS_NEEDED);
  const model = await exampleModel();
  const kafka = await broker(exampleUsers(model));
  const stopStartedBroker = async () => {
    if (!kafka.startedIn) return;
    log('stopping the broker started here');
    await stopBroker(kafka.startedIn);
  };
  process.on('SIGINT', () => void stopStartedBroker().finally(() => process.exit(130)));
  try {
    // Kept per broker, also for one started here: a later tour or npm test given this broker finds its state.
    const root = terraformRootFromEnv({ ...process.env, KAFKA_BOOTSTRAP_SERVERS: kafka.bootstrapServers });
    log(`creating the main topics and applying ${model.topologies.map((t) => `generated/terraform/${t.name}`).join(' and ')} (topics and ACLs) with Terraform; state in ${root}`);
    await applyExampleStacks(model, { root, bootstrapServers: kafka.bootstrapServers }).catch((error: unknown) => {
      if (!/already exists/.test(String(error))) throw error;
      throw new TourError(`${String(error).trim()}\nThis broker has the example's topics already, applied from another Terraform state than ${root}; take the tour on a broker of its own: unset KAFKA_BOOTSTRAP_SERVERS`);
    });
    const orders = model.topologies.find((t) => t.name === 'orders');
    const billing = orders?.consumers.find((c) => c.name === 'billing-order-confirmed');
    if (!orders || !billing) throw new TourError('topologies/orders.ts no longer has the consumer billing-order-confirmed, which the tour runs');
    const { run, deadLetters } = await deadLettersFromBillingService({ bootstrapServers: kafka.bootstrapServers, consumer: billing, log });
    log(`${deadLetters.length} dead letters of ${billing.name} in ${billing.dlq.name} (orders ${run}-*), unhandled:`);
    for (const record of deadLetters) log(`  ${oneLine(`${record.id} ${record.key?.toString('utf8')} ${record.decoded.errorClass}: ${record.decoded.errorMessage ?? ''}`)}`);
    const replay = principalName(orders.principals.replay);
    const env = { KAFKA_BOOTSTRAP_SERVERS: kafka.bootstrapServers, KAFKA_SASL_USERNAME: replay, KAFKA_SASL_PASSWORD: passwordOf(replay), KAFKA_SSL: 'false' };
    const command = `${Object.entries(env).map(([name, value]) => `${name}=${value}`).join(' ')} npx krt console`;
    if (!options.console) {
      process.stdout.write(`Next, the DLQ console (as ${replay}, the replay principal of topology orders):\n  ${command}\n`);
      if (kafka.startedIn) process.stdout.write('The broker keeps running; stop it with:\n  npm run kafka:stop\n');
      return;
    }
    log(`starting the DLQ console as ${replay} (the same as: ${command} --port ${options.port}); Ctrl-C stops it${kafka.startedIn ? ' and the broker' : ''}`);
    await runConsole(env, options.port);
  } catch (error) {
    await stopStartedBroker().catch(() => undefined);
    throw error;
  }
  await stopStartedBroker();
}

/** Runs `krt console` until it stops (Ctrl-C reaches it and the tour alike). */
async function runConsole(env: Record<string, string>, port: number): Promise<void> {
  const console = spawn(process.execPath, [CLI, 'console', '--port', String(port)], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => console.once('exit', (code, signal) => resolve({ code, signal })));
  // A signal sent to the tour alone is passed on, once: the console stops on its first
  // SIGINT or SIGTERM, and Ctrl-C (which npm passes on too) may already have reached it.
  process.removeAllListeners('SIGINT');
  let passedOn = false;
  const passOn = () => {
    if (!passedOn) console.kill('SIGTERM');
    passedOn = true;
  };
  process.on('SIGINT', passOn);
  process.on('SIGTERM', passOn);
  const { code, signal } = await exited;
  if (code !== 0) throw new TourError(`krt console stopped with ${signal ?? `exit status ${code}`} (its message is above)`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === __filename) {
  Promise.resolve()
    .then(() => tour(parseArgs(process.argv.slice(2))))
    .catch((error: unknown) => {
      log(`stopped: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    });
}
