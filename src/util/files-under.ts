import { readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Every file under `dir` as the code that reads it sees it: through symbolic links (a
 * linked template or package folder is read through its link; a link that leads back
 * into a folder above it is followed once).
 */
export function filesUnder(dir: string, keep: (name: string) => boolean, within: readonly string[] = []): string[] {
  const files: string[] = [];
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return files;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    // Joined by hand: path.join normalizes, which thousands of calls pay for and names read from the folder never need.
    const full = `${dir}${path.sep}${entry.name}`;
    let isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    let inside = within;
    if (entry.isSymbolicLink()) {
      const stat = statSync(full, { throwIfNoEntry: false });
      isDirectory = stat?.isDirectory() ?? false;
      isFile = stat?.isFile() ?? false;
      if (isDirectory) {
        const real = realpathSync.native(full);
        if (within.includes(real) || realpathSync.native(dir).startsWith(`${real}${path.sep}`)) continue;
        inside = [...within, real];
      }
    }
    if (isDirectory) files.push(...filesUnder(full, keep, inside));
    else if (isFile && keep(entry.name)) files.push(full);
  }
  return files;
}
