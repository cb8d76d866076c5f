import { Registry } from 'prom-client';
import { serveMonitors } from '../src/cli/monitor-command';
import { STOP_DEADLINE_MS } from '../src/cli/serve-until-signal';
import { kafkajsMonitorPort } from '../src/runtime/adapters/kafkajs-monitor';
import type { KafkaJsMonitorLike } from '../src/runtime/adapters/kafkajs-monitor';
import { createDlqMonitor } from '../src/runtime/monitor';
import { eventually } from './helpers/eventually';
import { testDescriptor } from './helpers/kafka';

jest.setTimeout(30_000);

/**
 * kafkajs as the monitor finds it when the DLQ's first unhandled offset holds no record
 * (a transaction marker at the log's end): the head-record read joins its group, and no
 * record at or after that offset ever comes, so the read waits out its timeout.
 */
function kafkaWithoutHeadRecord() {
  const connected = new Set<string>();
  let reading = false;
  let clients = 0;
  const client = () => {
    const id = `client-${clients++}`;
    return { connect: async () => void connected.add(id), disconnect: async () => void connected.delete(id) };
  };
  const kafka: KafkaJsMonitorLike = {
    admin: () => ({
      ...client(),
      fetchTopicOffsets: async () => [{ partition: 0, low: '0', high: '1' }],
      fetchOffsets: async () => [],
    }),
    consumer: () => ({
      ...client(),
      subscribe: async () => undefined,
      run: async () => void (reading = true),
      seek: () => undefined,
      pause: () => undefined,
      on: () => undefined,
      events: { GROUP_JOIN: 'consumer.group_join' },
    }),
  };
  return { kafka, reading: () => reading, connected: () => connected.size };
}

describe('krt monitor told to stop while a head-record read waits for its record', () => {
  it('stops well within the stop deadline, with every client it connected disconnected', async () => {
    const consumer = testDescriptor('billing', [60]);
    const world = kafkaWithoutHeadRecord();
    const registry = new Registry();
    const monitor = createDlqMonitor(consumer, { port: kafkajsMonitorPort(world.kafka, consumer.groups.monitor), registry });
    const io = { cwd: process.cwd(), stdout: () => undefined, stderr: () => undefined };
    const exporter = await serveMonitors(io, [{ name: consumer.name, monitor }], registry, { port: 0, host: '127.0.0.1', intervalMs: 60_000, interval: '1m' });
    await eventually('the head-record read', () => (world.reading() ? true : undefined));
    const asked = Date.now();
    await exporter.stop();
    expect({ stoppedWithinMs: Date.now() - asked < STOP_DEADLINE_MS / 5, connected: world.connected() }).toEqual({ stoppedWithinMs: true, connected: 0 });
  });
});
