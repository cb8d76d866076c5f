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

/**
 * The files named on the command line, or every `topologies/*.ts`, each once. For the commands
 * that judge or write the output (`projectOnly`), a named file must be one of those a full
 * run reads, and they come in its order: a file elsewhere got a stack that the next full run
 * took for deleted, a file named twice clashed with itself, and another order wrote another
 * snapshot (found by attack 39). `krt validate` and `krt monitor` take any spec file.
 */
export function resolveTopologyFiles(cwd: string, args: readonly string[], projectOnly = false): string[] {
  const project = discoverTopologyFiles(cwd);
  if (args.length === 0) return project;
  const named = [
    ...new Set(
      args.map((arg) => {
        const file = path.resolve(cwd, arg);
        if (!existsSync(file)) throw new UsageError(`no such topology file: ${arg}`);
        if (projectOnly && !project.includes(file)) {
          throw new UsageError(`${arg} is not one of the project's topology files (topologies/*.ts, as a run without files reads them): a run of it alone would generate what the next full run takes for deleted; move it into topologies/`);
        }
        return file;
      }),
    ),
  ];
  return projectOnly ? project.filter((file) => named.includes(file)) : named;
}
