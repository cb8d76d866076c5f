import type { CommandRegistration } from './command';
import { FILES_HELP } from './command';

export const registerCdktf: CommandRegistration = (program, { io, exit }) => {
  program
    .command('cdktf')
    .description('the cdktf app behind `cdktf synth` and `cdktf deploy` (cdktf.json: "app": "npx krt cdktf")')
    .argument('[files...]', FILES_HELP)
    .option('--out <dir>', 'the output folder holding the committed model snapshot and stacks, which the change is judged against', 'generated')
    .addHelpText(
      'after',
      '\nWrites the stacks into $CDKTF_OUTDIR, which cdktf sets, after the guards of `krt synth` (against the committed snapshot and stacks in --out): a change krt synth refuses builds no stack. Exit codes: 0 done, 1 spec errors or a refused change, 2 usage error.',
    )
    .action(async (files: string[], options: { out: string }) => {
      // cdktf takes a third of a second to load, which no other command needs.
      const { cdktfCommand } = require('../cdktf-command') as typeof import('../cdktf-command');
      exit(await cdktfCommand(io, files, options));
    });
};
