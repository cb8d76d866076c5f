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

  start(
    fields: Pick<Job, 'action' | 'description' | 'route' | 'by'>,
    run: (onProgress: (done: number, total: number) => void) => Promise<ActionOutcome>,
    explain: (error: unknown) => string,
  ): Job {
    const job: Job = { ...fields, id: randomBytes(12).toString('base64url'), state: 'running', done: 0, total: 0 };
    this.jobs.set(job.id, job);
    run((done, total) => {
      job.done = done;
      job.total = total;
    }).then(
      (outcome) => {
        job.outcome = outcome;
        job.done = outcome.handled.length;
        job.state = 'done';
      },
      (error: unknown) => {
        job.error = explain(error);
        job.state = 'failed';
      },
    ).finally(() => setTimeout(() => this.jobs.delete(job.id), KEEP_MS).unref());
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  /** Resolves when every job has ended, for a clean stop. */
  async settled(): Promise<void> {
    while ([...this.jobs.values()].some((j) => j.state === 'running')) await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
