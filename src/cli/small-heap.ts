import { setFlagsFromString } from 'node:v8';

/** How far (in percent) V8 lets the heap grow past what survived a full collection before the next. */
export const SYNTH_HEAP_GROWING_PERCENT = 20;

/**
 * A synth builds cdktf construct trees at full speed and drops them. V8 by default lets
 * the heap grow to several times what survived the last full collection (`--trace-gc`
 * of a 1,000-consumer synth: docs/benchmarks.md, "Where synth time and memory go").
 * Growing by a fifth keeps the peak near the live set for a few more collections.
 * This is no cap: a bigger repository still fits. A growing factor the user gave node
 * stands. Node does not accept this flag in NODE_OPTIONS, so the CLI sets it.
 */
export function favourSmallHeap(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((flag) => /^--heap[-_]growing[-_]percent/.test(flag))) return false;
  setFlagsFromString(`--heap-growing-percent=${SYNTH_HEAP_GROWING_PERCENT}`);
  return true;
}
