import { KrtError } from './krt-error';

/** What one poll gave: its reading, or why it failed. */
export type PollOutcome<S> = { readonly ok: true; readonly snapshot: S } | { readonly ok: false; readonly error: unknown };

/** Something polled: a DLQ monitor, or an entry that names one. */
export interface Pollable<S> {
  /** `signal` aborts when the loop stops: a read that waits (a head record) ends then. */
  poll(signal?: AbortSignal): Promise<S>;
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
  // A poll waits up to its read's timeout for a head record (15 s, past krt monitor's stop deadline): stop() ends it.
  const stopping = new AbortController();

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
        const snapshot = (await monitor.poll(stopping.signal)) as SnapshotOf<M>;
        tell(monitor, { ok: true, snapshot });
      } catch (error) {
        // A poll ended by stop() failed for no fault of Kafka's: nothing to report.
        if (!stopped) tell(monitor, { ok: false, error });
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
      stopping.abort(new KrtError('the monitor stopped'));
      if (timer) clearTimeout(timer);
      timer = undefined;
      await round;
    },
  };
}
