import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';

const consumer = testDescriptor('h142c', [60]);

/*
 * Review h142 (the monitor's `folded` cache, src/runtime/monitor-handled-states.ts; the key
 * predates 95e6218, which made the fold under it sliced): the fold is made again only when
 * `${entries.length}|uncommitted|starts|markCheck.version` changes. The audit tail starts over
 * when the audit topic was created again (monitor-audit-tail.ts readNew: kept = []), and a
 * new log holding as many entries as the old kept list gives the same key: the fold of the
 * old entries is reused.
 * Seen: DLQ of 100 records, no commit; old audit log of 100 records, 50 of them entries the
 * fold reads (replayed 0-49): size 50. Audit topic created again, its end 50 (below 100, so the
 * tail starts over), holding 50 entries that name 0-24 only: the monitor still reports 50, a
 * fresh monitor 75 (records 25-49 counted handled on the word of a log that is gone).
 * Pre-existing (the key is older than 95e6218); low likelihood: the counts must match.
 * Class: a cache keyed by a count, not by what was counted.
 * Fixed: the key starts with the tail's generation, which it bumps each time it starts over.
 */
describe('review h142: the monitor’s fold cache', () => {
  it('folds again when the audit topic was created again with as many entries as before', async () => {
    const state = { audit: [] as string[] };
    const entry = (action: string, offset: number) => JSON.stringify({ action, by: 'ops', reason: 'x', consumer: consumer.name, dlqTopic: consumer.dlqTopic, partition: 0, offset: String(offset) });
    const port: MonitorPort = {
      async endOffsets(topic) {
        return topic === consumer.dlqTopic ? [{ partition: 0, low: '0', high: '100' }] : [{ partition: 0, low: '0', high: '0' }];
      },
      async committedOffsets() {
        return [];
      },
      async timestampsAt(_topic, offsets) {
        return new Map(offsets.map((o) => [o.partition, 1_000]));
      },
      async readFrom(_topic, from) {
        const start = Number(from.get(0) ?? '0');
        return { records: state.audit.slice(start).map((value, i) => ({ partition: 0, offset: String(start + i), value })), ends: new Map([[0, String(state.audit.length)]]) };
      },
    };
    // 100 records, 50 of which the fold reads (the others' action is none it folds).
    state.audit = [...Array.from({ length: 50 }, (_, o) => entry('replayed', o)), ...Array.from({ length: 50 }, (_, o) => entry('noted', o))];
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(50);
    // The audit topic created again: its end (50) is below where the tail read to (100), so the tail starts over; its 50 entries name 0-24.
    state.audit = [...Array.from({ length: 25 }, (_, o) => entry('replayed', o)), ...Array.from({ length: 25 }, (_, o) => entry('discarded', o))];
    const fresh = createDlqMonitor(consumer, { port, registry: new Registry() });
    const fromScratch = (await fresh.poll()).dlqSize;
    expect(fromScratch).toBe(75);
    expect((await monitor.poll()).dlqSize).toBe(fromScratch);
  });
});
