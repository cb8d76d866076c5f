import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OutputFolderError } from '../writer/write-generated';
import { readStack } from './stack-resources';
import type { StackJson, StackResources } from './stack-resources';

/**
 * The Terraform stacks committed in the output folder, by stack name: what was applied,
 * and so what an apply of new output is measured against. The model snapshot says what
 * the stacks were generated from; a hand edit or a merge can make them disagree, and
 * Terraform deletes what the committed stack holds, not what the snapshot says.
 * `folder` is `stacks` for what `krt cdktf` built last into $CDKTF_OUTDIR. `skip`: stacks
 * known to be byte for byte what the emitter makes of the snapshot, which the guards then
 * synthesize from it when they need them (see `src/synth/stacks-as-generated.ts`).
 */
export function readCommittedStacks(outDir: string, folder = 'terraform', skip: ReadonlySet<string> = new Set()): Map<string, StackResources> {
  const stacks = new Map<string, StackResources>();
  const root = path.join(outDir, folder);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return stacks;
  }
  for (const stack of names.sort()) {
    if (skip.has(stack)) continue;
    let text: string;
    try {
      text = readFileSync(path.join(root, stack, 'cdk.tf.json'), 'utf8');
    } catch {
      continue;
    }
    let json: StackJson;
    try {
      json = JSON.parse(text) as StackJson;
    } catch (error) {
      throw new OutputFolderError(`${path.join(root, stack, 'cdk.tf.json')} is not JSON (${(error as Error).message}), so krt cannot tell what an apply would delete; restore it from git, then run this again`);
    }
    stacks.set(stack, readStack(stack, json));
  }
  return stacks;
}
