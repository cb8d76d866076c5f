import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { testDescriptor } from '../helpers/kafka';
import * as fold from '../../src/runtime/dlq-handled-from-audit';

describe('review h143: a monitor whose audit entries, from the log start on, name only offsets holding no record', () => {
  // What is seen: a DLQ partition whose only entry in the log is a `no-records` entry (offsets
  // 0-2 an aborted transaction, passed by a step: border -1), or whose records the entries name
  // retention deleted, leaving a marker range above the log start. The marks' read finds no
  // record, so markCheck keeps no witness (c.last undefined); each poll then takes the
  // partition as "nothing kept to go on from" (monitor-audit-marks.ts), bumps `version`,
  // reads the whole range again and the fold is made again: three polls, nothing changed,
  // three reads of 0-2 and three folds. With a year of audit log (1.3 s of fold work at
  // 300,000 entries, h142) that is the whole fold on every poll, not only when an entry comes.
  // Class: a cache keyed on a version bumped by a reset that is not a change.
  // Fixed: a partition without a witness is read again each poll (only a read shows a DLQ
  // created again there) and `version` moves only when that read finds something other than
  // before, so the fold is made again only then.
  it('reads the range and folds once while nothing changes', async () => {
    const monitored = testDescriptor('h143w', [60]);
    const audit = [JSON.stringify({ by: 'ops', consumer: monitored.name, dlqTopic: monitored.dlqTopic, partition: 0, action: 'no-records', from: '0', to: '2', offset: '-1', at: '2026-01-01T00:00:00Z' })];
    const asked: string[] = [];
    const port = {
      endOffsets: async (topic: string) => (topic === monitored.dlqTopic ? [{ partition: 0, low: '0', high: '3' }] : [{ partition: 0, low: '0', high: '0' }]),
      committedOffsets: async () => [],
      timestampsAt: async (_t: string, offsets: readonly { partition: number }[]) => new Map(offsets.map((o) => [o.partition, 1_000])),
      async readFrom(_t: string, from: ReadonlyMap<number, string>) {
        const start = Number(from.get(0) ?? '0');
        return { records: audit.slice(start).map((value, i) => ({ partition: 0, offset: String(start + i), value })), ends: new Map([[0, String(audit.length)]]) };
      },
      async marksAt(_t: string, ranges: ReadonlyMap<number, { from: bigint; to: bigint }>) {
        const { from, to } = ranges.get(0)!;
        asked.push(`${from}-${to}`);
        return { marks: new Map([[0, new Map<bigint, string>()]]), readTo: new Map([[0, to + 1n]]) };
      },
    };
    const folds = jest.spyOn(fold, 'handledFromAuditLogSliced');
    try {
      const monitor = createDlqMonitor(monitored, { port, registry: new Registry() });
      const sizes = [];
      for (let i = 0; i < 3; i++) sizes.push((await monitor.poll()).dlqSize);
      // One read per poll, as a partition with a witness has (its witness read): with no record
      // read there, only a new read shows a DLQ created again. The fold is made once.
      expect({ sizes, reads: asked.length, folds: folds.mock.calls.length }).toEqual({ sizes: [0, 0, 0], reads: 3, folds: 1 });
    } finally {
      folds.mockRestore();
    }
  });
});
