import { randomBytes } from 'node:crypto';
import type { ActionOutcome } from './backend';

/** A replay or discard running in the background while the page polls its progress. */
export interface Job {
  readonly id: string;
  readonly action: 'replay' | 'discard';
  readonly description: string;
  readonly route: string;
  readonly by: string;
  state: 'running' | 'done' | 'failed';
  done: number;
  total: number;
  outcome?: ActionOutcome;
  error?: string;
}

/** Finished jobs are kept this long for a page that polls late, then forgotten. */
const KEEP_MS = 60 * 60_000;

export class Jobs {
  private readonly jobs = new Map<string, Job>();
  /** Aborted by stop(): every job started hears it, and ends at its next step boundary. */
  private readonly stopping = new AbortController();
  private readonly running = new Set<Promise<unknown>>();

  start(
    fields: Pick<Job, 'action' | 'description' | 'route' | 'by'>,
    run: (onProgress: (done: number, total: number) => void, signal: AbortSignal) => Promise<ActionOutcome>,
    explain: (error: unknown) => string,
  ): Job {
    const job: Job = { ...fields, id: randomBytes(12).toString('base64url'), state: 'running', done: 0, total: 0 };
    this.jobs.set(job.id, job);
    const ran = run((done, total) => {
      job.done = done;
      job.total = total;
    }, this.stopping.signal).then(
      (outcome) => {
        job.outcome = outcome;
        job.done = outcome.handled.length;
        job.state = 'done';
      },
      (error: unknown) => {
        job.error = explain(error);
        job.state = 'failed';
      },
    ).finally(() => {
      this.running.delete(ran);
      setTimeout(() => this.jobs.delete(job.id), KEEP_MS).unref();
    });
    this.running.add(ran);
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  /**
   * Stops every job at its next step boundary (after a commit, never between a publish and
   * its commit) and resolves when all have ended: a stop waits for one step, not a replay.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.running);
  }
}
