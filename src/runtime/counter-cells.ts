import type { Counter } from 'prom-client';

/** One series of a counter, counted in a plain number between scrapes. */
export interface CounterCell {
  inc(): void;
}

/**
 * prom-client hashes and validates the label object on every `inc()`, children from
 * `labels()` included: a cost the hot-path bench shows per record. A cell is found once
 * per series and counts in a number; its count goes into the counter when the counter
 * is collected (every scrape and every `get()`), so readers never see a stale value.
 */
export class CounterCells<L extends string> {
  private readonly cells = new Map<string, { labels: Partial<Record<L, string>>; count: number; inc(): void }>();

  /** The cell of one series; call once per series, not per record. */
  cell(labels: Partial<Record<L, string>>): CounterCell {
    const key = JSON.stringify(labels);
    let cell = this.cells.get(key);
    if (!cell) {
      cell = {
        labels,
        count: 0,
        inc() {
          this.count++;
        },
      };
      this.cells.set(key, cell);
    }
    return cell;
  }

  /** Adds what the cells counted to the counter; its `collect` calls this. */
  flushInto(counter: Counter<L>): void {
    for (const cell of this.cells.values()) {
      if (cell.count === 0) continue;
      counter.inc(cell.labels, cell.count);
      cell.count = 0;
    }
  }
}
