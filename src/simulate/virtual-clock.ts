import type { Clock } from '../runtime/clock';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** A clock that only moves when told: timers fire in time order, ties in creation order. */
export class VirtualClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private seq = 0;

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(ms, resolve));
  }

  hasTimers(): boolean {
    return this.timers.length > 0;
  }

  /** Moves to the next timer and fires every timer due then. */
  advanceToNextTimer(): void {
    const next = this.timers[0];
    if (!next) return;
    this.current = Math.max(this.current, next.at);
    const due = this.timers.filter((t) => t.at <= this.current);
    this.timers = this.timers.filter((t) => t.at > this.current);
    for (const timer of due) timer.fn();
  }
}
