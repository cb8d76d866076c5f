import { ORDERING_STRATEGIES } from '../../spec/types';
import type { CommandRegistration } from './command';

export const registerSimulate: CommandRegistration = (program, { io, exit }) => {
  program
    .command('simulate')
    .description('run the real retry runtime on an in-memory broker with a virtual clock and print the timeline')
    .argument('[scenario]', 'a scenario YAML file (default: seed 004, examples/scenarios/seed-004.yml)')
    .option('--ordering <strategy>', `override the scenario's ordering: ${ORDERING_STRATEGIES.join(', ')}`)
    .addHelpText('after', '\nExit codes: 0 done, 1 invalid scenario, 2 usage (a scenario file that is not there among them).')
    .action(async (scenario: string | undefined, options: { ordering?: string }) => {
      const { simulateCommand } = require('../simulate-command') as typeof import('../simulate-command');
      exit(await simulateCommand(io, scenario, options));
    });
};
