/**
 * How many of the Confluent readers' native reads may run at once in this process. Each read
 * (rd_kafka_committed, and an admin's ListOffsets) runs on one of libuv's pool threads
 * (UV_THREADPOOL_SIZE, 4 by default) and holds it until the broker answers or the read times
 * out (READ_TIMEOUT_MS). The pool also serves the application's file reads, dns.lookup, crypto
 * and zlib: with eight park-by-key consumers in one process and the broker away, their reads
 * took the whole pool and a pbkdf2 of the application waited 9 s (attack 48). Half the pool,
 * at least one thread, leaves the other half to the application however many consumers run.
 *
 * A hand-written queue, not p-limit: its maintained releases are ES modules only, and the
 * runtime is CommonJS for Node 20.
 */
export class ReadSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  /**
   * Runs `read` once a slot is free (first come, first served); the slot is free again when it
   * settles, or after `abandonAfterMs` without an answer: the read then fails with `abandoned()`
   * and its late answer is dropped, so one read the client never answers holds up no other
   * reader of the process for good.
   */
  async run<T>(read: () => Promise<T>, abandonAfterMs?: number, abandoned?: () => Error): Promise<T> {
    if (this.running < this.size) this.running++;
    // A settling read hands its slot straight to the first waiter (running unchanged).
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let timer: NodeJS.Timeout | undefined;
    try {
      const reading = read();
      if (abandonAfterMs === undefined) return await reading;
      return await Promise.race([
        reading,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(abandoned?.() ?? new Error(`no answer within ${abandonAfterMs} ms`)), abandonAfterMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** The pool's size as libuv reads it at start-up: UV_THREADPOOL_SIZE, 4 unless set (1 to 1024). */
export function libuvPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const set = Number.parseInt(env.UV_THREADPOOL_SIZE ?? '', 10);
  return Number.isInteger(set) && set > 0 ? Math.min(set, 1024) : 4;
}

/** Half the pool, at least one. */
export function readSlotsFor(poolSize: number): number {
  return Math.max(1, Math.floor(poolSize / 2));
}

/** The process's slots, shared by every Confluent reader it runs. */
export const nativeReadSlots = new ReadSlots(readSlotsFor(libuvPoolSize()));
