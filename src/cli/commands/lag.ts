import { LAG_COMMAND } from '../../naming';
import type { CommandRegistration } from './command';
import { connectionHelp } from './connection-help';

export const registerLag: CommandRegistration = (program, { io, exit }) => {
  program
    .command(LAG_COMMAND)
    .description("print, per partition, the lag of the main group, of each retry tier and the DLQ backlog, with each group's members; read-only, within the monitor principal's ACLs")
    .argument('<consumer>', 'a consumer name from topologies/*.ts')
    .addHelpText('after', connectionHelp('the monitor principal'))
    .action(async (name: string) => {
      const { lagCommand } = require('../lag-command') as typeof import('../lag-command');
      exit(await lagCommand(io, name));
    });
};
