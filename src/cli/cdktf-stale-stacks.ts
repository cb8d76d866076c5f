import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { emitTerraform } from '../emitters/terraform';
import type { ProjectModel } from '../model/types';
import { compareStrings } from '../util/compare';

/**
 * The stacks whose Terraform, as `krt synth` would write it from this model, is not
 * byte-for-byte the committed `terraform/<stack>/cdk.tf.json` in the output folder: a
 * stack the spec changes, a stack it drops, or one it adds. Empty when the output is
 * exactly what krt synth wrote from this spec (and its guards accepted).
 */
export function staleStacks(model: ProjectModel, outDir: string): string[] {
  const expected = new Map(emitTerraform(model).map((file) => [file.path.split('/')[1]!, file.content]));
  let committed: string[];
  try {
    committed = readdirSync(path.join(outDir, 'terraform'));
  } catch {
    committed = [];
  }
  const stale = new Set(committed.filter((stack) => !expected.has(stack)));
  for (const [stack, content] of expected) {
    let text: string | undefined;
    try {
      text = readFileSync(path.join(outDir, 'terraform', stack, 'cdk.tf.json'), 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== content) stale.add(stack);
  }
  return [...stale].sort(compareStrings);
}
