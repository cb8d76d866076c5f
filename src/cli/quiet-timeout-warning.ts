/**
 * kafkajs 2.2 (its last release) schedules an idle request-queue check with
 * `setTimeout(fn, throttledUntil - Date.now())`, a negative delay while nothing is
 * throttled (node_modules/kafkajs/src/network/requestQueue/index.js,
 * scheduleCheckPendingRequests). Every Node clamps it to 1 ms, as kafkajs expects; Node 24
 * also prints a TimeoutNegativeWarning to stderr, once per process, which a CLI user reads
 * as a fault. The CLI drops that one warning; the runtime, a library, leaves the process's
 * warnings alone (docs/runtime.md says so).
 */
export function quietNegativeTimeoutWarning(): void {
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (isNegativeTimeout(warning, rest[0])) return;
    emit(warning, ...rest);
  }) as typeof process.emitWarning;
}

function isNegativeTimeout(warning: string | Error, typeOrOptions: unknown): boolean {
  if (warning instanceof Error) return warning.name === 'TimeoutNegativeWarning';
  const type = typeof typeOrOptions === 'string' ? typeOrOptions : (typeOrOptions as { type?: string } | undefined)?.type;
  return type === 'TimeoutNegativeWarning';
}
