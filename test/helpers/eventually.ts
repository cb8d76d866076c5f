/**
 * Polls until `check` returns a value other than undefined, or fails after `timeoutMs`;
 * `explain` adds what the test can tell of why (a group's members, a topic's offsets) to
 * the failure, for a wait that timed out on a run nobody watched.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  explain?: () => Promise<string>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const why = explain ? await explain().catch((error: unknown) => `(explaining failed: ${String(error)})`) : undefined;
      throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${why ? `; ${why}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
