import type { CliIo } from './io';

/** How long a serving command waits for its parts to close after SIGTERM or SIGINT, before it leaves anyway. */
export const STOP_DEADLINE_MS = 10_000;

/** The exit codes of a command that serves until a signal, as its help says them. */
export const SERVING_EXIT_CODES = `0 stopped, 1 spec errors or not stopped within ${STOP_DEADLINE_MS / 1000} s of the signal, 2 usage error (missing connection settings, or a --port or --host it cannot listen on, among them)`;

/** The commands that serve until a signal: once they return, the process ends, whatever a client left open. */
export const SERVING_COMMANDS: ReadonlySet<string> = new Set(['console', 'monitor']);

/** Resolves at the first SIGTERM or SIGINT; a second one ends the process at once (Node's default). */
export function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      process.off('SIGTERM', done).off('SIGINT', done);
      resolve();
    };
    process.once('SIGTERM', done).once('SIGINT', done);
  });
}

/**
 * Runs `stop` and waits for it at most `deadlineMs`. Whether it ended in time: if not, says
 * on stderr what did not close, so a console or monitor told to stop never hangs on a client
 * that did not leave (a Kafka member still joining, an action still running).
 */
export async function stoppedWithin(io: CliIo, what: string, stop: () => Promise<void>, deadlineMs = STOP_DEADLINE_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadlineMs)));
  const outcome = await Promise.race([
    stop().then(
      () => 'stopped' as const,
      (error: unknown) => {
        io.stderr(`${what}: stopping failed: ${error instanceof Error ? error.message : String(error)}\n`);
        return 'failed' as const;
      },
    ),
    deadline,
  ]);
  clearTimeout(timer);
  if (outcome === 'late') io.stderr(`${what}: did not stop within ${deadlineMs / 1000} s of the signal (a Kafka client still leaving, or an action still running); leaving anyway\n`);
  return outcome === 'stopped';
}
