import { KAFKA_ENV } from '../../naming';
import { SERVING_EXIT_CODES } from '../serve-until-signal';
import type { CommandRegistration } from './command';
import { FILES_HELP } from './command';

export const registerMonitor: CommandRegistration = (program, { io, exit }) => {
  program
    .command('monitor')
    .description('serve the DLQ, tier and main-lag gauges of every consumer of the topologies on /metrics, as the monitor principal')
    .argument('[files...]', FILES_HELP)
    .option('--port <port>', 'port of /metrics and /healthz (0 picks a free one)', '9835')
    .option('--host <address>', 'address to listen on', '0.0.0.0')
    .option('--interval <duration>', 'how often to read Kafka', '30s')
    .addHelpText('after', `\nConnects to $${KAFKA_ENV.bootstrapServers} as $${KAFKA_ENV.saslUsername} / $${KAFKA_ENV.saslPassword} (the monitor principal; $${KAFKA_ENV.saslMechanism} defaults to plain, $${KAFKA_ENV.ssl}=false for a plaintext listener). Runs until SIGTERM or SIGINT; exit codes: ${SERVING_EXIT_CODES}.`)
    .action(async (files: string[], options: { port: string; host: string; interval: string }) => {
      const { monitorCommand } = require('../monitor-command') as typeof import('../monitor-command');
      exit(await monitorCommand(io, files, options));
    });
};
