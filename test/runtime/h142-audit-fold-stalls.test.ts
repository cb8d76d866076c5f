import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { createMarkCheck } from '../../src/runtime/monitor-audit-marks';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';
import { longestStall } from '../helpers/event-loop-stall';

const consumer = testDescriptor('h142', [60]);
const N = 300_000;

/** 300,000 marked `replayed` entries of partition 0 and the marks of the records they name, made before any clock starts. */
function bigLog() {
  const audit = Array.from({ length: N }, (_, o) => JSON.stringify({ action: 'replayed', by: 'ops', reason: 'x', consumer: consumer.name, dlqTopic: consumer.dlqTopic, partition: 0, offset: String(o), mark: `1/${o}` }));
  const log = { records: audit.map((value, i) => ({ partition: 0, offset: String(i), value })), ends: new Map([[0, String(N)]]) };
  const marks = { marks: new Map([[0, new Map(Array.from({ length: N }, (_, o) => [BigInt(o), `1/${o}`] as const))]]), readTo: new Map([[0, BigInt(N)]]) };
  return { log, marks };
}

/*
 * Review h142 (95e6218): the fold is sliced, but two stretches around it are not, and both
 * grow with the log:
 *  - src/runtime/monitor-audit-marks.ts read(): after port.marksAt answers, one synchronous
 *    loop over every mark read (compare, set, track `last`, the line 95e6218 added): 116 ms (263 ms in jest) at
 *    300,000 marks in plain node 20, on the first poll and on every re-read after a drop.
 *  - src/runtime/dlq-handled-from-audit.ts handledFromAuditLogSliced's return: markHandled of
 *    every handled offset (a sort of all of them, then the runs), no yield: 33-94 ms at 300,000.
 * Seen: the monitor's first poll on a 300,000-entry log (port reads made up front, as
 * review-h136's test does) held the event loop 232 ms in one stretch (115 ms at 100,000), against
 * the commit's "under 0.11 s"; markCheck.marks alone 116 ms.
 * Class: work proportional to the whole history, done in one synchronous stretch.
 * Fixed: read()'s merge is sliced work run with the signal, so is the fold's finish
 * (markHandledSliced), and so is a third stretch found while fixing these, the tail's check of
 * new entries against the DLQ's ends (monitor-audit-tail.ts, about 100 ms at 300,000). The
 * stalls are measured in CPU time, which a loaded machine does not stretch.
 */
describe('review h142: stretches the slicing left in the monitor’s audit fallback', () => {
  it('reads back 300,000 marks without holding the event loop past a few slices', async () => {
    const { marks } = bigLog();
    const check = createMarkCheck({ marksAt: async () => marks } as unknown as MonitorPort, consumer.dlqTopic);
    const entries = Array.from({ length: N }, (_, o) => ({ fields: { action: 'replayed', dlqTopic: consumer.dlqTopic, partition: 0, offset: String(o), mark: `1/${o}` } }));
    const stall = await longestStall(() => check.marks(entries, [0], new Map([[0, BigInt(N)]]), new Map([[0, 0n]])));
    // A slice is 20 ms; a collection of the 300,000 marks' heap (its helper threads count in CPU time) takes some more.
    expect(stall).toBeLessThan(100);
  }, 60_000);

  it('polls a 300,000-entry audit log without holding the event loop 110 ms (the commit says under 0.11 s at 100,000)', async () => {
    const { log, marks } = bigLog();
    const port: MonitorPort = {
      async endOffsets(topic) {
        return topic === consumer.dlqTopic ? [{ partition: 0, low: '0', high: String(N + 1) }] : [{ partition: 0, low: '0', high: '0' }];
      },
      async committedOffsets() {
        return [];
      },
      async timestampsAt(_topic, offsets) {
        return new Map(offsets.map((o) => [o.partition, 1_000]));
      },
      readFrom: async (_topic, from) => (Number(from.get(0) ?? '0') === 0 ? log : { records: [], ends: log.ends }),
      marksAt: async () => marks,
    };
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry() });
    let size: number | undefined;
    const stall = await longestStall(async () => {
      size = (await monitor.poll()).dlqSize;
    });
    expect({ size, stalledUnder110: stall < 110 }).toEqual({ size: 1, stalledUnder110: true });
  }, 120_000);
});
