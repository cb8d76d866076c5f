import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { contentHash } from '../writer/write-generated';
import type { SynthCache } from './synth-cache';

/** A file's status when it was hashed, and when that was: [size, mtime, ctime, inode, sha256, hashed at] (ms). */
type Known = [number, number, number, number, string, number];

/**
 * The kernel's clock for file times is coarse (a few milliseconds): a file whose change
 * time is this close to the moment it was hashed may change again without its status
 * changing, so it is hashed again next time (git calls such an entry "racily clean").
 */
const RACY_MS = 1000;

/**
 * The SHA-256 of the generated files in one output folder, as `krt synth` checks them
 * before reusing a topology's outputs. A file whose status (size, modification and change
 * time, inode) is what it was when it was last hashed, long enough after its last change,
 * is not read again: any write to it, by an editor, `git checkout` or a rename over it,
 * changes its change time or inode. Any other file is read and hashed.
 */
export class OutputHashes {
  private readonly key: string | undefined;
  private readonly known: Record<string, Known>;
  private readonly seen: Record<string, Known> = {};
  private hashed = false;

  constructor(
    private readonly cache: SynthCache | undefined,
    private readonly outDir: string,
  ) {
    this.key = cache && createHash('sha256').update(`${cache.fingerprint}\0${path.resolve(outDir)}`).digest('hex');
    this.known = (this.key && (cache?.get('folder', this.key)?.files as Record<string, Known> | undefined)) || {};
  }

  /** The SHA-256 of `file` (relative to the folder), or undefined when it is missing. */
  hash(file: string): string | undefined {
    const target = path.join(this.outDir, file);
    const now = Date.now();
    const stat = statSync(target, { throwIfNoEntry: false });
    if (!stat?.isFile()) return undefined;
    const status = [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino] as const;
    const known = this.known[file];
    if (known && status.every((value, i) => known[i] === value) && stat.ctimeMs < known[5] - RACY_MS) {
      this.seen[file] = known;
      return known[4];
    }
    const sha = contentHash(readFileSync(target));
    this.seen[file] = [...status, sha, now];
    this.hashed = true;
    return sha;
  }

  /** Remembers what this run hashed, for the next run into the same folder (unless it learned nothing new). */
  save(): void {
    const same = !this.hashed && Object.keys(this.seen).length === Object.keys(this.known).length;
    if (this.cache && this.key && !same) this.cache.put('folder', this.key, { files: this.seen });
  }
}
