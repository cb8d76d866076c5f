import { Command, CommanderError } from 'commander';
import { ORDERING_STRATEGIES } from '../spec/types';
import { ScenarioError } from '../simulate/scenario';
import { cdktfCommand } from './cdktf-command';
import { simulateCommand } from './simulate-command';
import { OutputFolderError } from '../writer/write-generated';
import { EXIT } from './io';
import type { CliIo } from './io';
import { synthCommand } from './synth-command';
import { UsageError } from './topology-files';
import { validateCommand } from './validate-command';

const FILES_HELP = 'topology files (default: every topologies/*.ts)';

/** Runs `krt` with these arguments (without `node krt`) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = new Command('krt')
    .description('Non-blocking Kafka retry topologies: typed specs in, Terraform, alerts, runbooks and a router out.')
    .version(packageVersion())
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');

  program
    .command('validate')
    .description('check topology specs and print every problem with its path; writes nothing')
    .argument('[files...]', FILES_HELP)
    .addHelpText('after', '\nExit codes: 0 valid, 1 spec errors, 2 usage error.')
    .action(async (files: string[]) => {
      exitCode = await validateCommand(io, files);
    });

  program
    .command('synth')
    .description('generate Terraform (and the other outputs) from the topology specs')
    .argument('[files...]', FILES_HELP)
    .option('--check', 'generate in memory and list every file that differs from the output folder; writes nothing', false)
    .option('--out <dir>', 'output folder', 'generated')
    .addHelpText('after', '\nExit codes: 0 done (or up to date with --check), 1 spec errors or stale output, 2 usage error.')
    .action(async (files: string[], options: { check: boolean; out: string }) => {
      exitCode = await synthCommand(io, files, options);
    });

  program
    .command('cdktf')
    .description('the cdktf app behind `cdktf synth` and `cdktf deploy` (cdktf.json: "app": "npx krt cdktf")')
    .argument('[files...]', FILES_HELP)
    .addHelpText('after', '\nWrites the stacks into $CDKTF_OUTDIR, which cdktf sets. Exit codes: 0 done, 1 spec errors, 2 usage error.')
    .action(async (files: string[]) => {
      exitCode = await cdktfCommand(io, files);
    });

  program
    .command('simulate')
    .description('run the real retry runtime on an in-memory broker with a virtual clock and print the timeline')
    .argument('[scenario]', 'a scenario YAML file (default: seed 004, examples/scenarios/seed-004.yml)')
    .option('--ordering <strategy>', `override the scenario's ordering: ${ORDERING_STRATEGIES.join(', ')}`)
    .addHelpText('after', '\nExit codes: 0 done, 1 invalid scenario, 2 usage error.')
    .action(async (scenario: string | undefined, options: { ordering?: string }) => {
      exitCode = await simulateCommand(io, scenario, options);
    });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    return handleError(error, io);
  }
}

function handleError(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) {
    const quiet = ['commander.helpDisplayed', 'commander.version'];
    return quiet.includes(error.code) ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof UsageError) {
    io.stderr(`krt: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof OutputFolderError || error instanceof ScenarioError) {
    io.stderr(`krt: ${error.message}\n`);
    return EXIT.problems;
  }
  throw error;
}

function packageVersion(): string {
  return (require('../../package.json') as { version: string }).version;
}
