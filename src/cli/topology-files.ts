import { existsSync } from 'node:fs';
import path from 'node:path';
import { discoverTopologyFiles } from '../load/load-topologies';

import { KrtError } from '../runtime/krt-error';

/** A mistake on the command line: exit 2. */
export class UsageError extends KrtError {
  constructor(message: string) {
    super(message, { exit: 'usage' });
  }
}

/** The files named on the command line, or every `topologies/*.ts`. */
export function resolveTopologyFiles(cwd: string, args: readonly string[]): string[] {
  if (args.length === 0) return discoverTopologyFiles(cwd);
  return args.map((arg) => {
    const file = path.resolve(cwd, arg);
    if (!existsSync(file)) throw new UsageError(`no such topology file: ${arg}`);
    return file;
  });
}
