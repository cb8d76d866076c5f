/**
 * Long synchronous work written once, as a generator that yields now and then between
 * items, and run either at once (runNow: a command, a test) or in slices that let the event
 * loop run between them (runSliced): a monitor beside a service, or the DLQ console, folding
 * a year of audit log must not hold the service's heartbeats and HTTP for seconds.
 */
export type SlicedWork<T> = Generator<void, T, void>;

/** How many items a loop of sliced work handles between two yields (`if (++n % ITEMS_PER_YIELD === 0) yield;`): a yield is a time check, not a pause. */
export const ITEMS_PER_YIELD = 512;

/** How long one slice may hold the event loop. */
const SLICE_MS = 20;

/** Runs the work to its end in one synchronous stretch. */
export function runNow<T>(work: SlicedWork<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/** Runs the work in slices of about `sliceMs`, the event loop running between them; stops between two slices once `signal` is aborted. */
export async function runSliced<T>(work: SlicedWork<T>, signal?: AbortSignal, sliceMs = SLICE_MS): Promise<T> {
  let sliceStart = Date.now();
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    if (Date.now() - sliceStart < sliceMs) continue;
    await new Promise((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    sliceStart = Date.now();
  }
}

