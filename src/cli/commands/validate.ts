import type { CommandRegistration } from './command';
import { FILES_HELP } from './command';

export const registerValidate: CommandRegistration = (program, { io, exit }) => {
  program
    .command('validate')
    .description('check topology specs and print every problem with its path; writes nothing')
    .argument('[files...]', FILES_HELP)
    .addHelpText('after', '\nExit codes: 0 valid, 1 spec errors, 2 usage error.')
    .action(async (files: string[]) => {
      const { validateCommand } = require('../validate-command') as typeof import('../validate-command');
      exit(await validateCommand(io, files));
    });
};
