import { readFileSync } from 'node:fs';

/** The calling thread's CPU time in ms from Linux's schedstat (nanoseconds on the CPU), or undefined where it is not there. */
function linuxThreadCpuMs(): number | undefined {
  try {
    const ns = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
    return Number.isFinite(ns) && ns > 0 ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The CPU time of the main thread, in ms: a loaded machine (CI runs suites side by side)
 * stretches wall time, not the work between two turns of the loop, and the garbage
 * collector's helper threads (in the process's CPU time) run beside the loop, not in it.
 * Node before 23.9 has no thread's CPU time: Linux's schedstat of the thread then, and the
 * process's only where neither is there (the helper threads then count: a looser bound).
 */
function cpuMs(): number {
  const thread = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.();
  if (thread !== undefined) return (thread.user + thread.system) / 1000;
  const linux = linuxThreadCpuMs();
  if (linux !== undefined) return linux;
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** The most CPU time the event loop spent without running a 5 ms interval while `work` ran: the longest stretch of synchronous work. */
export async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = cpuMs();
  let longest = 0;
  const beat = setInterval(() => {
    longest = Math.max(longest, cpuMs() - last);
    last = cpuMs();
  }, 5);
  try {
    last = cpuMs();
    await work();
  } finally {
    clearInterval(beat);
  }
  return Math.max(longest, cpuMs() - last);
}
