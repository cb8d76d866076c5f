import { KAFKA_ENV } from '../../naming';
import type { ConsoleCommandOptions } from '../console-command';
import { SERVING_EXIT_CODES } from '../serve-until-signal';
import type { CommandRegistration } from './command';

export const registerConsole: CommandRegistration = (program, { io, exit }) => {
  program
    .command('console')
    .description('serve the DLQ tools of krt dlq (inspect, dry run, replay, discard, audit log) as a local web app for every consumer of the topologies')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8686')
    .option('--host <address>', 'address to listen on; the default serves this machine only', '127.0.0.1')
    .option('--read-only', 'never replay or discard, whatever the credentials allow', false)
    .option('--grafana-url <url>', "Grafana's address, to link each topology's dashboard")
    .option('--by <name>', 'the name the action forms start with (default: $USER)')
    .addHelpText(
      'after',
      `\nConnects to $${KAFKA_ENV.bootstrapServers} as $${KAFKA_ENV.saslUsername} / $${KAFKA_ENV.saslPassword} ($${KAFKA_ENV.saslMechanism} defaults to plain, $${KAFKA_ENV.ssl}=false for a plaintext listener); replay and discard only as the topology's replay principal. Prints a URL with a session token, which every request needs. Runs until SIGTERM or SIGINT; exit codes: ${SERVING_EXIT_CODES}.`,
    )
    .action(async (options: ConsoleCommandOptions) => {
      const { consoleCommand } = require('../console-command') as typeof import('../console-command');
      exit(await consoleCommand(io, options));
    });
};
