import type { MemoryBroker } from '../../src/simulate/memory-broker';
import type { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * A run of the simulated world that stops making progress is a stall: a consumer that
 * waits for good, or a loop of seeks, resumes or timers that never hands a record over.
 * In the simulation nothing else can unstick it, so instead of spinning to the broker's
 * step limit (minutes a case, hours once fast-check shrinks it) the run fails at once,
 * saying what never happened.
 */
export interface StallBudget {
  /** Simulation steps (a delivery, or the clock moved to its next timer) in a row that change nothing a user could see. */
  readonly steps: number;
  /** Simulated time that may pass without progress: longer than the longest legitimate wait. */
  readonly ms: number;
}

/** Thrown when a run exceeds its budget; the message says which records never reached their fate and what was paused. */
export class StallError extends Error {
  override name = 'StallError';
}

/**
 * Watches a run's progress: `signature` summarises everything a user could see (handler
 * calls, records written, commits); `check()` is called every step and throws a
 * StallError built by `describe` once the signature has not changed for the budget.
 */
export function stallWatch(budget: StallBudget, now: () => number, signature: () => string, describe: (why: string) => string) {
  let last = signature();
  let since = 0;
  let sinceMs = now();
  let steps = 0;
  let longest = 0;
  return {
    /** The longest run of steps without progress so far (to size the budget by). */
    get longestIdle(): number {
      return longest;
    },
    /** One step of the simulation; throws a StallError when the budget is spent. */
    check(phase: string): void {
      steps++;
      const current = signature();
      if (current !== last) {
        last = current;
        since = 0;
        sinceMs = now();
        return;
      }
      since++;
      longest = Math.max(longest, since);
      const idleMs = now() - sinceMs;
      if (since > budget.steps) throw new StallError(describe(`${phase}: ${since} steps in a row without progress (budget ${budget.steps}; ${steps} steps in all)`));
      if (idleMs > budget.ms) throw new StallError(describe(`${phase}: ${idleMs} ms of simulated time without progress (budget ${budget.ms} ms)`));
    },
  };
}

export type StallWatch = ReturnType<typeof stallWatch>;

/** The parts of a simulated world a user could watch: its broker, groups, topics and partitions per topic. */
export interface WatchedWorld {
  readonly broker: MemoryBroker;
  readonly groups: readonly string[];
  readonly topics: readonly string[];
  readonly partitions: number;
}

const partitionsOf = (world: WatchedWorld) => Array.from({ length: world.partitions }, (_, p) => p);

/** Records written to every topic and every group's commits (offset and metadata): the broker's part of a signature. */
export function brokerSignature(world: WatchedWorld): string {
  const { broker, groups, topics } = world;
  const written = topics.map((t) => partitionsOf(world).map((p) => broker.records(t, p).length).join(',')).join(';');
  const commits = groups.map((g) => topics.map((t) => partitionsOf(world).map((p) => `${broker.committedOffset(g, t, p)}/${broker.committedMetadata(g, t, p)}`).join(',')).join(';'));
  return `${written}|${commits.join('|')}`;
}

/** The stall report's lines on the broker: what each connected member holds paused, then each commit on its own line. */
export function brokerReport(world: WatchedWorld): string[] {
  const { broker, groups, topics } = world;
  const committed = groups.flatMap((g) =>
    topics.flatMap((t) =>
      partitionsOf(world).flatMap((p) => {
        const offset = broker.committedOffset(g, t, p);
        const metadata = broker.committedMetadata(g, t, p);
        return offset === undefined ? [] : [`  ${g} ${t}-${p}: ${offset} of ${broker.records(t, p).length}${metadata ? ` (${JSON.stringify(metadata)})` : ''}`];
      }),
    ),
  );
  return [`paused partitions: ${groups.flatMap((g) => broker.pausedPartitions(g).map((tp) => `${g} ${tp}`)).join(', ') || 'none'}`, 'committed:', ...committed];
}

/** Runs the broker until `stopWhen` or until nothing is left to do (or `until` is reached), every step under the watch. */
export function watchedRun(broker: MemoryBroker, watch: StallWatch, phase: string, options: { until?: number; stopWhen?: () => boolean } = {}): Promise<void> {
  return broker.run({
    ...(options.until === undefined ? {} : { until: options.until }),
    stopWhen: () => {
      if (options.stopWhen?.()) return true;
      watch.check(phase);
      return false;
    },
    // The watch ends a stall long before; the broker's own limit only bounds a run that keeps progressing.
    maxSteps: 200_000,
  });
}

/**
 * Waits for `work` (the start or stop of a process) while the clock goes on, under the
 * same watch: a stop() that waits on a timer is not left waiting on a clock nobody moves.
 * `abandonWhen` ends the wait without a result (the process died during the work: a killed
 * process's stop() never returns, and its calls never answer).
 */
export function drive<T>(watch: StallWatch, clock: VirtualClock, phase: string, work: Promise<T>): Promise<T>;
export function drive<T>(watch: StallWatch, clock: VirtualClock, phase: string, work: Promise<T>, abandonWhen: () => boolean): Promise<T | undefined>;
export async function drive<T>(watch: StallWatch, clock: VirtualClock, phase: string, work: Promise<T>, abandonWhen: () => boolean = () => false): Promise<T | undefined> {
  let settled = false;
  const result = work.finally(() => (settled = true));
  result.catch(() => {});
  for (;;) {
    for (let i = 0; i < 20 && !settled; i++) await new Promise((resolve) => setImmediate(resolve));
    if (settled) return result;
    if (abandonWhen()) return undefined;
    watch.check(phase);
    clock.advanceToNextTimer();
  }
}
