/**
 * The CPU time of the main thread, in ms: a loaded machine (CI runs suites side by side)
 * stretches wall time, not the work between two turns of the loop, and the garbage
 * collector's helper threads (in the process's CPU time) run beside the loop, not in it.
 * Node before 23.9 has no thread's CPU time: the process's then.
 */
function cpuMs(): number {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.() ?? process.cpuUsage();
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
