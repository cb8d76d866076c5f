import { processIo } from './io';
import { quietNegativeTimeoutWarning } from './quiet-timeout-warning';
import { runCli } from './program';
import { SERVING_COMMANDS } from './serve-until-signal';
import { favourSmallHeap } from './small-heap';

/** How long a finished command's process may linger on what a client left running before it ends anyway. */
const LINGER_MS = 2_000;

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
      // Any other command is done too: it ends now unless something it left (a Kafka client's
      // retry timer, a socket still closing) keeps the process alive, and then once that had
      // LINGER_MS to end. A command's own work is all awaited before this, groups left included,
      // and so is its output: a write to a pipe is queued in Node, and a slow reader (a pager,
      // `| (sleep 15; wc -c)`) must get all of it.
      void outputWritten().then(() => setTimeout(() => process.exit(code), LINGER_MS).unref());
    },
    (error: unknown) => {
      process.stderr.write(`krt: internal error, please report it: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 70;
    },
  );
}

/** Resolves once stdout and stderr passed on everything written so far (or failed: the reader left). */
function outputWritten(): Promise<void> {
  // A write's callback runs after every earlier write of the stream left Node.
  const written = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));
  return Promise.all([written(process.stdout), written(process.stderr)]).then(() => undefined);
}
