/** This process's RSS, sampled every 20 ms from now: `peakMb()` is the highest so far. */
export function rssSampler(): { readonly peakMb: () => number; readonly stop: () => void } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  return {
    peakMb: () => Math.max(peak, process.memoryUsage.rss()) / 2 ** 20,
    stop: () => clearInterval(timer),
  };
}
