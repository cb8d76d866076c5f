import type { Command } from 'commander';
import { KAFKA_ENV } from '../../naming';
import type { PlanOptions } from '../plan-command';
import type { CommandRegistration } from './command';
import { FILES_HELP } from './command';

/** `krt plan` (and, with --live, the drift check). */
export const registerPlan: CommandRegistration = (program, { io, exit }) => {
  program
    .command('plan')
    .description('compare the specs with the committed generated/ and say, per consumer, what changes and how safe it is; writes nothing')
    .argument('[files...]', FILES_HELP)
    .option('--out <dir>', 'the output folder holding the committed model snapshot', 'generated')
    .option('--applied <stacks...>', 'stacks you applied since the last synth: their Terraform state holds nothing their configuration does not declare, so what they deleted may be declared elsewhere', [])
    .option('--json', 'print JSON for CI', false)
    .option('--live', 'compare the cluster with the spec instead: topics, partitions, configs, ACLs, draining tiers; read-only', false)
    .option('--min-insync-replicas <n>', 'with --live: the min_insync_replicas Terraform was applied with, if not the spec\'s')
    .addHelpText(
      'after',
      `\nWith --live, connects as $${KAFKA_ENV.saslUsername} (the topology's drift principal, User:<topology>-drift) to $${KAFKA_ENV.bootstrapServers}.\nExit codes: 0 nothing destructive (--live: the cluster matches), 1 spec errors, changes krt synth refuses or a broker error, 2 usage error, 3 destructive changes planned, 4 (--live) the cluster differs from the spec.`,
    )
    .action(async (files: string[], options: PlanOptions, command: Command) => {
      const { planCommand } = require('../plan-command') as typeof import('../plan-command');
      exit(await planCommand(io, files, { ...options, outGiven: command.getOptionValueSource('out') === 'cli' }));
    });
};
