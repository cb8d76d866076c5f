import { KrtError } from '../runtime/krt-error';

/** What the user changes when a server cannot listen, by the system's error code. */
const FIXES: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the address is already in use; choose another --port (0 picks a free one) or stop what listens there',
  EACCES: 'this user may not listen on that port (ports below 1024 need privileges); choose another --port',
  EADDRNOTAVAIL: 'no network interface of this machine has that address; choose another --host',
  ENOTFOUND: 'that host name does not resolve; choose another --host',
};

/** A serving command that could not listen on --host and --port: the command line's to change (exit 2), not a crash. */
export class ListenError extends KrtError {
  constructor(message: string, cause: unknown) {
    super(message, { exit: 'usage', cause });
  }
}

/** The error to throw when listening failed: a ListenError for an address the user chose badly, else the error itself. */
export function listenFailure(command: string, host: string, port: number, error: unknown): unknown {
  // Not `instanceof Error`: Node's own errors may come from another realm than the caller's Error (a test's vm context).
  const code = typeof error === 'object' && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
  const fix = code === undefined ? undefined : FIXES[code];
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return fix ? new ListenError(`${command} cannot listen on ${address}: ${fix}`, error) : error;
}
