import { processIo } from './io';
import { quietNegativeTimeoutWarning } from './quiet-timeout-warning';
import { runCli } from './program';
import { SERVING_COMMANDS } from './serve-until-signal';
import { favourSmallHeap } from './small-heap';

/** The `krt` process: runs the command its arguments name and sets the exit code. */
export function main(args: readonly string[] = process.argv.slice(2)): void {
  quietNegativeTimeoutWarning();
  // Both build every topology's cdktf construct tree (`krt cdktf` is the app cdktf.json runs).
  if (args[0] === 'synth' || args[0] === 'cdktf') favourSmallHeap();
  runCli(args, processIo()).then(
    (code) => {
      process.exitCode = code;
      // A console or monitor told to stop has closed what it could: a client that did not leave must not keep it running.
      if (SERVING_COMMANDS.has(args[0] ?? '')) process.exit(code);
    },
    (error: unknown) => {
      process.stderr.write(`krt: internal error, please report it: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 70;
    },
  );
}
