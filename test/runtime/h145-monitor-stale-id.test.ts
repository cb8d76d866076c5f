import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { testDescriptor } from '../helpers/kafka';
import { auditEntryOf, auditMonitorPort } from './audit-monitor-port';

/**
 * h145 review: a poll whose id read fails folds with the id read last (so a failed read
 * does not make kafka_dlq_expired_total count again). That id can outlive a DLQ created
 * again while the reads keep failing: the old topic's entries name it. Taken whatever their
 * records' marks, they counted the new records at their offsets as handled (kafka_dlq_size
 * silent) for as long as the reads failed; an entry naming the reader's id whose record shows
 * another mark is left out (dlq-audit-this-log.ts), so the new records are counted.
 */
const consumer = testDescriptor('monitor-ids-stale', [60]);
const entry = auditEntryOf(consumer);
const oldMark = (o: number) => `${1_700_000_000_000 + o}/3/7`;
const newMark = (o: number) => `${1_800_000_000_000 + o}/3/7`;

describe('a monitor whose id reads fail from before the DLQ is created again', () => {
  afterEach(() => jest.restoreAllMocks());

  it('counts the new topic\'s records once the id read last is old', async () => {
    let now = Date.parse('2026-01-02T00:00:00.000Z');
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const dlq = { high: 50, mark: oldMark };
    // The old topic: its 50 records replayed, each entry naming its id and its record's mark.
    const audit = Array.from({ length: 50 }, (_, o) => entry({ action: 'replayed', offset: String(o), mark: oldMark(o), dlqTopicId: 'old-id' }));
    let idReads = 0;
    const port = auditMonitorPort(consumer, { get low() { return 0; }, get high() { return dlq.high; } }, audit, {
      async marksAt(_topic, ranges) {
        const marks = new Map<number, Map<bigint, string>>();
        const readTo = new Map<number, bigint>();
        for (const [partition, { from, to }] of ranges) {
          const last = to < BigInt(dlq.high) - 1n ? to : BigInt(dlq.high) - 1n;
          const m = new Map<bigint, string>();
          for (let o = from; o <= last; o++) m.set(o, dlq.mark(Number(o)));
          marks.set(partition, m);
          readTo.set(partition, to + 1n);
        }
        return { marks, readTo };
      },
      topicId: async () => {
        if (++idReads === 1) return 'old-id';
        throw new Error('Local: Broker transport failure');
      },
    });
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry(), onError: () => {} });
    expect(await monitor.poll()).toMatchObject({ dlqSize: 0 });
    // The id reads fail from now on; an hour later the DLQ is deleted and created again: 50 new records, none handled.
    now += 3_600_000;
    Object.assign(dlq, { high: 50, mark: newMark });
    expect((await monitor.poll()).dlqSize).toBe(50);
  });
});
