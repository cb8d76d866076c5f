import { Command } from 'commander';
import { ORDERING_STRATEGIES } from '../spec/types';
import { DEFAULT_REPLAY_LIMIT, DLQ_COMMAND, DLQ_FLAGS, KAFKA_ENV, LAG_COMMAND, REPLAY_ROUTES } from '../naming';
import type { ReplayCommandOptions } from './dlq-command';
import { addPlanCommand } from './plan-command';
import { exitAfter } from './exit-after';
import { EXIT } from './io';
import { addConsoleCommand } from './console-command';
import type { CliIo } from './io';

/*
 * Each command's module is required when the command runs, not when krt starts: the
 * DLQ tools load kafkajs, the simulator a YAML parser, the monitor prom-client, and a
 * one-topology synth would pay for all of them (a quarter of its time). Registration
 * stays here, and needs only names and constants.
 */
const commands = {
  dlq: () => require('./dlq-command') as typeof import('./dlq-command'),
  lag: () => require('./lag-command') as typeof import('./lag-command'),
  monitor: () => require('./monitor-command') as typeof import('./monitor-command'),
  simulate: () => require('./simulate-command') as typeof import('./simulate-command'),
  synth: () => require('./synth-command') as typeof import('./synth-command'),
  validate: () => require('./validate-command') as typeof import('./validate-command'),
};

const FILES_HELP = 'topology files (default: every topologies/*.ts)';

/** Runs `krt` with these arguments (without `node krt`) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('krt')
    .description('Non-blocking Kafka retry topologies: typed specs in, Terraform, alerts, runbooks and a router out.')
    .version(packageVersion())
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');

  program
    .command('validate')
    .description('check topology specs and print every problem with its path; writes nothing')
    .argument('[files...]', FILES_HELP)
    .addHelpText('after', '\nExit codes: 0 valid, 1 spec errors, 2 usage error.')
    .action(async (files: string[]) => {
      exitCode = await commands.validate().validateCommand(io, files);
    });

  program
    .command('synth')
    .description('generate Terraform (and the other outputs) from the topology specs')
    .argument('[files...]', FILES_HELP)
    .option('--check', 'generate in memory and list every file that differs from the output folder; writes nothing', false)
    .option('--out <dir>', 'output folder', 'generated')
    .option('--no-cache', 'load every topology file and generate every output again, ignoring what earlier runs left in node_modules/.cache/kafka-retry-topology')
    .addHelpText('after', '\nExit codes: 0 done (or up to date with --check), 1 spec errors or stale output, 2 usage error.')
    .action(async (files: string[], options: { check: boolean; out: string; cache: boolean }) => {
      exitCode = await commands.synth().synthCommand(io, files, options);
    });

  addPlanCommand(program, io, FILES_HELP, (code) => (exitCode = code));

  program
    .command('cdktf')
    .description('the cdktf app behind `cdktf synth` and `cdktf deploy` (cdktf.json: "app": "npx krt cdktf")')
    .argument('[files...]', FILES_HELP)
    .addHelpText('after', '\nWrites the stacks into $CDKTF_OUTDIR, which cdktf sets. Exit codes: 0 done, 1 spec errors, 2 usage error.')
    .action(async (files: string[]) => {
      // Required here, not at the top: cdktf takes a third of a second to load, which no other command needs.
      const { cdktfCommand } = require('./cdktf-command') as typeof import('./cdktf-command');
      exitCode = await cdktfCommand(io, files);
    });

  program
    .command('simulate')
    .description('run the real retry runtime on an in-memory broker with a virtual clock and print the timeline')
    .argument('[scenario]', 'a scenario YAML file (default: seed 004, examples/scenarios/seed-004.yml)')
    .option('--ordering <strategy>', `override the scenario's ordering: ${ORDERING_STRATEGIES.join(', ')}`)
    .addHelpText('after', '\nExit codes: 0 done, 1 invalid scenario, 2 usage error.')
    .action(async (scenario: string | undefined, options: { ordering?: string }) => {
      exitCode = await commands.simulate().simulateCommand(io, scenario, options);
    });

  const dlq = program.command('dlq').description('inspect, replay and discard the records of a consumer\'s DLQ, on the broker');
  const connection = `\nConnects to $${KAFKA_ENV.bootstrapServers} as $${KAFKA_ENV.saslUsername} / $${KAFKA_ENV.saslPassword} (the replay principal; $${KAFKA_ENV.saslMechanism} defaults to plain, $${KAFKA_ENV.ssl}=false for a plaintext listener). Exit codes: 0 done, 1 spec or broker error, 2 usage error.`;
  dlq
    .command(DLQ_COMMAND.inspect)
    .description('list the unhandled records, grouped by error name (the x-error-class header, e.g. OrderValidationError) and original topic, with their headers decoded')
    .argument('<consumer>', 'a consumer name from topologies/*.ts')
    .option(DLQ_FLAGS.json, 'print JSON for scripts', false)
    .addHelpText('after', connection)
    .action(async (name: string, options: { json: boolean }) => {
      exitCode = await commands.dlq().dlqInspectCommand(io, name, options);
    });
  dlq
    .command(DLQ_COMMAND.replay)
    .description("publish records back to this consumer only, through its first retry tier due at once (same key, value and partition, x-replayed-from-dlq set), then commit them; --to main-topic for every group")
    .argument('<consumer>', 'a consumer name from topologies/*.ts')
    .option(`${DLQ_FLAGS.ids} <ids>`, 'records by id, <partition>:<offset>,...')
    .option(`${DLQ_FLAGS.errorClass} <error-name>`, 'records whose error name (x-error-class header, as inspect groups them) is this, e.g. OrderValidationError')
    .option(DLQ_FLAGS.all, 'every unhandled record')
    .option(`${DLQ_FLAGS.limit} <n>`, `at most this many records (default ${DEFAULT_REPLAY_LIMIT} with --error-class or --all)`)
    .option(`${DLQ_FLAGS.rate} <per-second>`, 'records per second at most', '10')
    .option(DLQ_FLAGS.dryRun, 'print what would be replayed; publish and commit nothing', false)
    .option(`${DLQ_FLAGS.by} <name>`, 'who replays, for the audit log (default: $USER)')
    .option(`${DLQ_FLAGS.to} <route>`, `${REPLAY_ROUTES.firstTier}: this consumer only (default); ${REPLAY_ROUTES.mainTopic}: every group reading the main topic, which needs ${DLQ_FLAGS.yes}`)
    .option(DLQ_FLAGS.yes, `confirm ${DLQ_FLAGS.to} ${REPLAY_ROUTES.mainTopic} after reading which other groups will process the records`, false)
    .addHelpText('after', connection)
    .action(async (name: string, options: ReplayCommandOptions) => {
      exitCode = await commands.dlq().dlqReplayCommand(io, name, options);
    });
  dlq
    .command(DLQ_COMMAND.discard)
    .description('mark records handled without replaying them, recording why and who decided in the DLQ audit log')
    .argument('<consumer>', 'a consumer name from topologies/*.ts')
    .option(`${DLQ_FLAGS.ids} <ids>`, 'records by id, <partition>:<offset>,... (required)')
    .option(`${DLQ_FLAGS.reason} <text>`, 'why they cannot be saved (required)')
    .option(`${DLQ_FLAGS.by} <name>`, 'who decided (required)')
    .addHelpText('after', connection)
    .action(async (name: string, options: { ids?: string; reason?: string; by?: string }) => {
      exitCode = await commands.dlq().dlqDiscardCommand(io, name, options);
    });

  program
    .command('monitor')
    .description('serve the DLQ, tier and main-lag gauges of every consumer of the topologies on /metrics, as the monitor principal')
    .argument('[files...]', FILES_HELP)
    .option('--port <port>', 'port of /metrics and /healthz (0 picks a free one)', '9835')
    .option('--host <address>', 'address to listen on', '0.0.0.0')
    .option('--interval <duration>', 'how often to read Kafka', '30s')
    .addHelpText('after', `\nConnects to $${KAFKA_ENV.bootstrapServers} as $${KAFKA_ENV.saslUsername} / $${KAFKA_ENV.saslPassword} (the monitor principal; $${KAFKA_ENV.saslMechanism} defaults to plain, $${KAFKA_ENV.ssl}=false for a plaintext listener). Runs until SIGTERM or SIGINT; exit codes: 0 stopped, 1 spec errors, 2 usage error.`)
    .action(async (files: string[], options: { port: string; host: string; interval: string }) => {
      exitCode = await commands.monitor().monitorCommand(io, files, options);
    });

  addConsoleCommand(program, io, (code) => (exitCode = code));

  program
    .command(LAG_COMMAND)
    .description("print, per partition, the lag of the main group, of each retry tier and the DLQ backlog, with each group's members; read-only, within the monitor principal's ACLs")
    .argument('<consumer>', 'a consumer name from topologies/*.ts')
    .addHelpText('after', connection.replace('the replay principal', 'the monitor principal'))
    .action(async (name: string) => {
      exitCode = await commands.lag().lagCommand(io, name);
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    return exitAfter(error, io, argv[0]);
  }
}

function packageVersion(): string {
  return (require('../../package.json') as { version: string }).version;
}
