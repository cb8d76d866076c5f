import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App } from 'cdktf';
import { KrtError } from '../../runtime/krt-error';

/**
 * A cdktf App whose stacks are only turned into Terraform JSON in memory (`toTerraform()`),
 * never synthesized to disk. cdktf's App makes its output folder (`cdktf.out`, or
 * $CDKTF_OUTDIR) and a `stacks` folder in it as it is constructed: `krt plan` and
 * `krt synth --check`, which write nothing, left `cdktf.out/` in the working folder and
 * failed in a read-only checkout. Each one names a folder of the system's temporary folder
 * instead, removed as soon as the App is made (nothing reads it after): a process stopped
 * by a signal, or run in jest's sandbox, where exit handlers do not run, leaves none behind.
 */
export function detachedApp(): App {
  let outdir: string;
  try {
    outdir = mkdtempSync(path.join(os.tmpdir(), 'krt-cdktf-'));
  } catch (error) {
    throw new KrtError(`krt builds Terraform in memory but cdktf needs a folder to name, and none can be made in ${os.tmpdir()} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): set TMPDIR to a writable folder`, { cause: error });
  }
  try {
    return new App({ skipValidation: true, outdir });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
