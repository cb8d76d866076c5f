/** `metric{a="x",b="y"}` with label values escaped as PromQL strings. */
export function selector(metric: string, labels: Readonly<Record<string, string>>): string {
  const matchers = Object.entries(labels).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return `${metric}{${matchers.join(',')}}`;
}

/** Prometheus durations: whole seconds, in the largest exact unit. */
export function promDuration(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  for (const [unit, size] of [['d', 86400], ['h', 3600], ['m', 60]] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
