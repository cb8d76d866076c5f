import { Command } from 'commander';
import { EXIT } from './io';
import type { CliIo } from './io';
import { exitAfter } from './exit-after';
import type { CommandRegistration } from './commands/command';
import { registerCdktf } from './commands/cdktf';
import { registerConsole } from './commands/console';
import { registerDlq } from './commands/dlq';
import { registerLag } from './commands/lag';
import { registerMonitor } from './commands/monitor';
import { registerPlan } from './commands/plan';
import { registerSimulate } from './commands/simulate';
import { registerSynth } from './commands/synth';
import { registerValidate } from './commands/validate';

/** Every `krt` command, in the order `krt --help` lists them; each file registers its own. */
const COMMANDS: readonly CommandRegistration[] = [registerValidate, registerSynth, registerPlan, registerCdktf, registerSimulate, registerDlq, registerMonitor, registerConsole, registerLag];

/** Runs `krt` with these arguments (without `node krt`) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('krt')
    .description('Non-blocking Kafka retry topologies: typed specs in, Terraform, alerts, runbooks and a router out.')
    .version(packageVersion())
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  for (const register of COMMANDS) register(program, { io, exit: (code) => (exitCode = code) });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    return exitAfter(error, io, argv[0]);
  }
}

function packageVersion(): string {
  return (require('../../package.json') as { version: string }).version;
}
