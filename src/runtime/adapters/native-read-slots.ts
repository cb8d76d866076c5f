/**
 * How many of the Confluent readers' native reads may run at once in this process. Each read
 * (rd_kafka_committed, and an admin's ListOffsets) runs on one of libuv's pool threads
 * (UV_THREADPOOL_SIZE, 4 by default) and holds it until the broker answers or the read times
 * out (READ_TIMEOUT_MS: librdkafka returns by then). The pool also serves the application's
 * file reads, dns.lookup, crypto and zlib: with eight park-by-key consumers in one process and
 * the broker away, their reads took the whole pool and a pbkdf2 of the application waited 9 s
 * (attack 48). Half the pool, at least one thread, is the readers'; the cost is that a read
 * may wait for others' turns (each port reads one at a time, so at most one read per port waits).
 *
 * The slots are this thread's: a worker thread loads its own (the pool is the process's).
 * A hand-written queue, not p-limit: its maintained releases are ES modules only, and the
 * runtime is CommonJS for Node 20; and a read must leave the queue when its reader leaves.
 */
export class ReadSlots {
  private running = 0;
  private readonly waiting: { readonly go: () => void }[] = [];

  constructor(readonly size: number) {}

  /**
   * Runs `read` once a slot is free (first come, first served); the slot is free again when it
   * settles. Aborted before its turn (its reader leaving), the read never runs: it fails with
   * the signal's reason and gives up its place.
   */
  async run<T>(read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running < this.size) this.running++;
    // A settling read hands its slot straight to the first waiter (running unchanged).
    else await this.turn(signal);
    try {
      return await read();
    } finally {
      const next = this.waiting.shift();
      if (next) next.go();
      else this.running--;
    }
  }

  private turn(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(signal!.reason);
      };
      const waiter = {
        go: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.waiting.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** libuv's largest pool (MAX_THREADPOOL_SIZE). */
const MAX_POOL = 1024;

/**
 * The pool's size as libuv reads it at start-up (uv__threadpool_init): 4 unless
 * UV_THREADPOOL_SIZE is set; set, its atoi() value, 0 (or no number) meaning 1, a negative
 * one (read unsigned) or one past 1024 meaning 1024.
 */
export function libuvPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  const set = env.UV_THREADPOOL_SIZE;
  if (set === undefined) return 4;
  const n = Number.parseInt(set, 10);
  if (Number.isNaN(n) || n === 0) return 1;
  return n < 0 || n > MAX_POOL ? MAX_POOL : n;
}

/** Half the pool, at least one. */
export function readSlotsFor(poolSize: number): number {
  return Math.max(1, Math.floor(poolSize / 2));
}

/** The slots of every Confluent reader of this thread. */
export const nativeReadSlots = new ReadSlots(readSlotsFor(libuvPoolSize()));
