import type { CommandRegistration } from './command';
import { FILES_HELP } from './command';

export const registerCdktf: CommandRegistration = (program, { io, exit }) => {
  program
    .command('cdktf')
    .description('the cdktf app behind `cdktf synth` and `cdktf deploy` (cdktf.json: "app": "npx krt cdktf")')
    .argument('[files...]', FILES_HELP)
    .option('--out <dir>', 'the output folder krt synth wrote: the stacks built must be exactly its committed ones', 'generated')
    .addHelpText(
      'after',
      '\nWrites the stacks into $CDKTF_OUTDIR, which cdktf sets, only when they are byte-for-byte what `krt synth` wrote into --out (so its guards judged them) and the committed output does not undo what it built last there. Exit codes: 0 built, 1 spec errors, a refused change, or a write into cdktf\'s output folder the filesystem refused, 2 usage (an `--out` that is a file).',
    )
    .action(async (files: string[], options: { out: string }) => {
      // cdktf takes a third of a second to load, which no other command needs.
      const { cdktfCommand } = require('../cdktf-command') as typeof import('../cdktf-command');
      exit(await cdktfCommand(io, files, options));
    });
};
