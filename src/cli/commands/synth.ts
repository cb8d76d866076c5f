import type { CommandRegistration } from './command';
import { FILES_HELP } from './command';

export const registerSynth: CommandRegistration = (program, { io, exit }) => {
  program
    .command('synth')
    .description('generate Terraform (and the other outputs) from the topology specs')
    .argument('[files...]', FILES_HELP)
    .option('--check', 'generate in memory and list every file that differs from the output folder; writes nothing', false)
    .option('--out <dir>', 'output folder', 'generated')
    .option('--applied <stacks...>', 'stacks you applied since the last synth (cdktf deploy <stack>): their Terraform state holds nothing their configuration does not declare, so what they deleted may be declared elsewhere', [])
    .option('--no-cache', 'load every topology file and generate every output again, ignoring what earlier runs left in node_modules/.cache/kafka-retry-topology')
    .addHelpText('after', '\nExit codes: 0 done (or up to date with --check), 1 spec errors or stale output, 2 usage error.')
    .action(async (files: string[], options: { check: boolean; out: string; cache: boolean; applied: string[] }) => {
      const { synthCommand } = require('../synth-command') as typeof import('../synth-command');
      exit(await synthCommand(io, files, options));
    });
};
