import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App } from 'cdktf';
import { KrtError } from '../../runtime/krt-error';

/** The folder every detached App names as its output: made once per process, removed at its exit. */
let outdir: string | undefined;

/**
 * A cdktf App whose stacks are only turned into Terraform JSON in memory (`toTerraform()`),
 * never synthesized to disk. cdktf's App makes its output folder (`cdktf.out`, or
 * $CDKTF_OUTDIR) and a `stacks` folder in it as it is constructed: `krt plan` and
 * `krt synth --check`, which write nothing, left `cdktf.out/` in the working folder and
 * failed in a read-only checkout. These name one empty folder of the system's temporary
 * folder instead, shared by the process.
 */
export function detachedApp(): App {
  return new App({ skipValidation: true, outdir: (outdir ??= temporaryOutdir()) });
}

function temporaryOutdir(): string {
  let folder: string;
  try {
    folder = mkdtempSync(path.join(os.tmpdir(), 'krt-cdktf-'));
  } catch (error) {
    throw new KrtError(`krt builds Terraform in memory but cdktf needs a folder to name, and none can be made in ${os.tmpdir()} (${(error as Error).message}): set TMPDIR to a writable folder`, { cause: error });
  }
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  return folder;
}
