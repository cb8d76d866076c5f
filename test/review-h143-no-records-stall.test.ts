import { entriesOfAnotherLog } from '../src/runtime/dlq-audit-this-log';

describe('review h143: the check of `no-records` entries against the log, between two yields of the sliced fold', () => {
  // What is seen: 512 `no-records` entries (about 100 KB of audit log from a stray writer, or
  // anyone who can write to the audit topic) each naming a range of 99,989 offsets inside what
  // the marks' read covered: entriesOfAnotherLog yields once per 512 entries, and
  // anotherNoRecords walks every offset of each range (up to 100,000, dlq-audit-this-log.ts),
  // so one slice runs about 2.2 s here (the slices are meant to be about 20 ms). The monitor
  // folds again whenever an audit entry comes, so an in-process monitor holds its service's
  // event loop (heartbeats, HTTP) for seconds per poll; the console's session open too.
  // Class: work per item unbounded inside a sliced loop (the h142 stall class, by another path).
  // Fixed (anyWithin), as suggested: walk the marks read (sorted offsets, a binary search for the first at or after
  // `from`) instead of every offset of the range, or yield inside the range walk.
  it('keeps one slice item of the check under 100 ms', () => {
    const DLQ = 'orders.dlq';
    const entries = Array.from({ length: 512 }, (_, i) => ({ fields: { dlqTopic: DLQ, action: 'no-records', partition: 0, from: String(1 + (i % 5)), to: String(99_990 + (i % 5)), offset: String(i % 5) } }));
    const marks = new Map([[0, new Map([[0n, 'a'], [200_000n, 'b']])]]);
    const work = entriesOfAnotherLog(entries, DLQ, { starts: new Map([[0, 0n]]), marks, covered: new Map([[0, { from: 0n, to: 300_000n }]]) });
    const started = process.cpuUsage();
    work.next();
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1000).toBeLessThan(100);
  });
});
