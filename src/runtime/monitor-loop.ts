/** What one poll gave: its reading, or why it failed. */
export type PollOutcome<S> = { readonly ok: true; readonly snapshot: S } | { readonly ok: false; readonly error: unknown };

/** Something polled: a DLQ monitor, or an entry that names one. */
export interface Pollable<S> {
  poll(): Promise<S>;
}

/** What a monitor's poll resolves to. */
export type SnapshotOf<M extends Pollable<unknown>> = Awaited<ReturnType<M['poll']>>;

export interface PollLoopOptions<M extends Pollable<unknown>> {
  /** The pause between the end of one round and the start of the next. */
  readonly intervalMs: number;
  /** Told every poll's outcome; a listener that throws changes nothing. */
  readonly onPoll?: (polled: M, outcome: PollOutcome<SnapshotOf<M>>) => void;
}

export interface PollLoop {
  /** Stops polling; resolves once the round in flight, if any, has ended. */
  stop(): Promise<void>;
}

/**
 * The one poll loop of the DLQ monitors: `createDlqMonitor(...).start()`, `krt monitor`
 * and the NestJS module's `dlqMonitor` all run it, so they fail alike. A round polls each
 * monitor in turn, starting at once (no gap in the gauges after a restart); the next round
 * starts `intervalMs` after it ends, so polls never overlap and a slow broker is not
 * asked twice. A failed poll is reported and the round goes on; the monitor's `poll()`
 * has already dropped its gauges, so the alerts see it missing, not stale.
 */
export function startPollLoop<M extends Pollable<unknown>>(monitors: readonly M[], options: PollLoopOptions<M>): PollLoop {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let round: Promise<void> | undefined;

  const tell = (polled: M, outcome: PollOutcome<SnapshotOf<M>>) => {
    try {
      options.onPoll?.(polled, outcome);
    } catch {
      // A listener's bug must not stop the gauges.
    }
  };

  async function pollAll(): Promise<void> {
    for (const monitor of monitors) {
      if (stopped) return;
      try {
        tell(monitor, { ok: true, snapshot: (await monitor.poll()) as SnapshotOf<M> });
      } catch (error) {
        tell(monitor, { ok: false, error });
      }
    }
  }

  function next(): void {
    timer = undefined;
    round = pollAll().finally(() => {
      round = undefined;
      if (!stopped) timer = setTimeout(next, options.intervalMs);
    });
  }

  next();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await round;
    },
  };
}
