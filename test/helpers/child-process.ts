import { spawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A child process whose exit is recorded from the moment it is spawned. */
export interface Child {
  readonly process: ChildProcess;
  /** Resolves when the process has exited, even if it exited before anyone waited. */
  readonly exited: Promise<Exit>;
  /** Throws, with the exit status and the end of stderr, if the process is no longer running. */
  assertRunning(what: string): void;
  /** Everything it has written to stdout so far. */
  stdout(): string;
  /** Everything it has written to stderr so far. */
  stderr(): string;
}

/**
 * Spawns a process with its stdout and stderr captured (stderr is shown when it dies). Waiting on `once('exit')` after the
 * fact misses an exit that already happened and waits forever; `exited` cannot.
 */
export function spawnChild(command: string, args: readonly string[], options: SpawnOptions = {}): Child {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  let exit: Exit | undefined;
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<Exit>((resolve) => {
    child.once('error', (error) => {
      stderr += String(error);
      exit = { code: null, signal: null };
      resolve(exit);
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  return {
    process: child,
    exited,
    assertRunning(what) {
      if (exit) throw new Error(`${what} exited (code ${exit.code}, signal ${exit.signal}); its stderr ends with:\n${stderr.split('\n').slice(-20).join('\n')}`);
    },
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

/** The child's exit, or 'still running' after `ms` (it is then killed): a hung child fails the test, not the run. */
export async function exitWithin(child: Child, ms: number): Promise<Exit | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), ms)));
  const outcome = await Promise.race([child.exited, late]);
  clearTimeout(timer);
  if (outcome === 'still running') child.process.kill('SIGKILL');
  return outcome;
}
