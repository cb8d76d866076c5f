import { DEFAULT_REPLAY_LIMIT, DLQ_COMMAND, DLQ_FLAGS, REPLAY_ROUTES } from '../../naming';
import type { ReplayCommandOptions } from '../dlq-command';
import type { CommandRegistration } from './command';
import { connectionHelp } from './connection-help';

const dlqCommands = () => require('../dlq-command') as typeof import('../dlq-command');

export const registerDlq: CommandRegistration = (program, { io, exit }) => {
  const dlq = program.command('dlq').description("inspect, replay and discard the records of a consumer's DLQ, on the broker");
  const connection = connectionHelp('the replay principal');
  const ids = 'ids that are not unhandled records of the DLQ';
  const idUsage = 'an unknown consumer, missing connection settings, and ids not written as partition:offset';
  dlq
    .command(DLQ_COMMAND.inspect)
    .description('list the unhandled records, grouped by error name (the x-error-class header, e.g. OrderValidationError) and original topic, with their headers decoded')
    .argument('<consumer>', 'a consumer name from topologies/*.ts')
    .option(DLQ_FLAGS.json, 'print JSON for scripts', false)
    .addHelpText('after', connection)
    .action(async (name: string, options: { json: boolean }) => {
      exit(await dlqCommands().dlqInspectCommand(io, name, options));
    });
  dlq
    .command(DLQ_COMMAND.replay)
    .description('publish records back to this consumer only, through its first retry tier due at once (same key, value and partition, x-replayed-from-dlq set), then commit them; --to main-topic for every group')
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
    .addHelpText('after', connectionHelp('the replay principal', `records it will not replay as asked (${ids}, a record its route cannot take, ${DLQ_FLAGS.to} ${REPLAY_ROUTES.mainTopic} without ${DLQ_FLAGS.yes})`, idUsage))
    .action(async (name: string, options: ReplayCommandOptions) => {
      exit(await dlqCommands().dlqReplayCommand(io, name, options));
    });
  dlq
    .command(DLQ_COMMAND.discard)
    .description('mark records handled without replaying them, recording why and who decided in the DLQ audit log')
    .argument('<consumer>', 'a consumer name from topologies/*.ts')
    .option(`${DLQ_FLAGS.ids} <ids>`, 'records by id, <partition>:<offset>,... (required)')
    .option(`${DLQ_FLAGS.reason} <text>`, 'why they cannot be saved (required)')
    .option(`${DLQ_FLAGS.by} <name>`, 'who decided (required)')
    .addHelpText('after', connectionHelp('the replay principal', ids, idUsage))
    .action(async (name: string, options: { ids?: string; reason?: string; by?: string }) => {
      exit(await dlqCommands().dlqDiscardCommand(io, name, options));
    });
};
