/** Where a command writes and where it runs; tests pass their own. */
export interface CliIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stderr is a terminal, so progress can redraw one line. */
  readonly interactive?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  /** Resolves when stdout has taken what was written (a pipe to a slow reader fills up): output streamed from Kafka waits for it. */
  readonly drain?: () => Promise<void>;
  /** Whether the reader of stdout left (`| head`): a command streaming output can stop reading. */
  readonly stdoutClosed?: () => boolean;
  /**
   * Writes several lines, each the command's own, in one write: what `stdout` makes of each
   * line alone (human output escapes a new line inside a chunk as data). See writeLines.
   */
  readonly stdoutLines?: (lines: readonly string[]) => void;
}

/** Writes `lines` (each ending with its new line) in one write where the io can, else one by one. */
export function writeLines(io: CliIo, lines: readonly string[]): void {
  if (lines.length === 0) return;
  if (io.stdoutLines) io.stdoutLines(lines);
  else for (const line of lines) io.stdout(line);
}

export const EXIT = { ok: 0, problems: 1, usage: 2 } as const;

export function processIo(): CliIo {
  let stdoutClosed = false;
  // `krt dlq inspect | head -1`: the reader left. Stop writing and finish quietly, as Unix tools do.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stdoutClosed = true;
  });
  return {
    cwd: process.cwd(),
    stdout: (text) => {
      if (!stdoutClosed) process.stdout.write(text);
    },
    stderr: (text) => process.stderr.write(text),
    interactive: Boolean(process.stderr.isTTY),
    env: process.env,
    drain: () =>
      stdoutClosed || !process.stdout.writableNeedDrain
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const done = () => {
              process.stdout.off('drain', done).off('error', done).off('close', done);
              resolve();
            };
            process.stdout.on('drain', done).on('error', done).on('close', done);
          }),
    stdoutClosed: () => stdoutClosed,
  };
}
