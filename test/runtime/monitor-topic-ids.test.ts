import { Registry } from 'prom-client';
import { createDlqMonitor } from '../../src/runtime/monitor';
import type { MonitorPort } from '../../src/runtime/monitor-port';
import { testDescriptor } from '../helpers/kafka';
import { auditEntryOf, auditMonitorPort } from './audit-monitor-port';

const consumer = testDescriptor('monitor-ids', [60]);

/**
 * The monitor's fallback to the audit log (the replay group's commits gone) where its port
 * reads topic ids (`krt monitor` reads them through the Confluent client where it is
 * installed): entries naming another id than the DLQ's now are of a DLQ deleted and created
 * again, and count nothing as handled, whatever their offsets; entries naming its id count.
 */
function aPort(dlq: { low: number; high: number }, audit: string[], topicId: MonitorPort['topicId']): MonitorPort {
  return auditMonitorPort(consumer, dlq, audit, topicId === undefined ? {} : { topicId });
}

const entry = auditEntryOf(consumer);
const replayedUnder = (id: string, count: number) => Array.from({ length: count }, (_, o) => entry({ action: 'replayed', offset: String(o), dlqTopicId: id }));

describe('the monitor, where its port reads topic ids', () => {
  it('counts as unhandled the records of a DLQ created again whose offsets the old topic\'s entries name', async () => {
    const poll = (id: string) => createDlqMonitor(consumer, { port: aPort({ low: 0, high: 100 }, replayedUnder('old-id', 50), async () => id), registry: new Registry() }).poll();
    expect((await poll('new-id')).dlqSize).toBe(100);
    expect((await poll('old-id')).dlqSize).toBe(50);
  });

  it('gives a DLQ created again no expired count from the old topic\'s floor it read before', async () => {
    // The old topic: 1,000 records handled, then deleted by retention.
    const dlq = { low: 1000, high: 1000 };
    let id = 'old-id';
    const audit = [entry({ action: 'handled-below', belowOffset: '1000', expiredTotal: '0', dlqTopicId: 'old-id' })];
    const monitor = createDlqMonitor(consumer, { port: aPort(dlq, audit, async () => id), registry: new Registry() });
    expect(await monitor.poll()).toMatchObject({ dlqSize: 0, dlqExpired: 0 });
    // Created again: 200 records, retention deleted the first 100, none handled.
    Object.assign(dlq, { low: 100, high: 200 });
    id = 'new-id';
    // The poll that reads the new id is dropped (its ends may be the old topic's: h145-monitor-poll-straddles-offsets); the next one counts.
    await expect(monitor.poll()).rejects.toThrow(/deleted and created again/);
    expect(await monitor.poll()).toMatchObject({ dlqSize: 100, dlqExpired: 100 });
  });

  it('asks a port whose client reads no ids once, and judges the entries by their offsets as without ids', async () => {
    const topicId = jest.fn(async () => undefined);
    const monitor = createDlqMonitor(consumer, { port: aPort({ low: 0, high: 100 }, replayedUnder('old-id', 50), topicId), registry: new Registry() });
    expect((await monitor.poll()).dlqSize).toBe(50);
    expect((await monitor.poll()).dlqSize).toBe(50);
    expect(topicId).toHaveBeenCalledTimes(1);
  });

  it('says once that it could not read the id, and judges the entries as without ids meanwhile', async () => {
    const errors: string[] = [];
    const port = aPort({ low: 0, high: 100 }, replayedUnder('old-id', 50), async () => {
      throw new Error('SASL authentication failed');
    });
    const monitor = createDlqMonitor(consumer, { port, registry: new Registry(), onError: (e) => errors.push(String(e)) });
    expect((await monitor.poll()).dlqSize).toBe(50);
    expect((await monitor.poll()).dlqSize).toBe(50);
    expect(errors.filter((e) => /could not read the topic id/.test(e))).toHaveLength(1);
  });
});
