import { randomBytes } from 'node:crypto';
import { benchTopology, createConsumerTopics } from './bench-topology';
import { groupRecords, recordJson } from '../src/dlq/inspect';
import { replayRecords } from '../src/dlq/replay';
import { replayRoute } from '../src/dlq/replay-route';
import { DlqSession } from '../src/dlq/session';
import { consumerDescriptor } from '../src/model/consumer-descriptor';
import type { ConsumerModel, TopologyModel } from '../src/model/types';
import { HEADERS } from '../src/naming/headers';
import { kafkajsMonitorPort } from '../src/runtime/adapters/kafkajs-monitor';
import { decodeHandled, partitionBacklog } from '../src/runtime/dlq-handled';
import { createDlqMonitor } from '../src/runtime/monitor';
import { benchKafka } from './kafka';

export interface DlqBenchResult {
  readonly records: number;
  readonly inspect: { readonly recordsPerSecond: number; readonly peakRssMb: number };
  readonly replay: { readonly recordsPerSecond: number; readonly peakRssMb: number };
  /** A real-broker poll of a DLQ whose replay group lists 2,000,000 handled offsets as one range. */
  readonly monitorPollMs: number;
  /** The handled-state part of that poll alone: decode the range and count the backlog. */
  readonly handledStateMs: number;
  readonly handledRangeOffsets: number;
}

const RECORDS = 100_000;
const HANDLED_RANGE = 2_000_000;

/** A consumer on fresh topics, compiled from a spec as `krt` would, with its topics created. */
export async function freshConsumer(): Promise<ConsumerModel> {
  return (await freshTopology()).consumers[0]!;
}

/** The topology of one such consumer. */
export async function freshTopology(): Promise<TopologyModel> {
  const id = randomBytes(3).toString('hex');
  const topology = benchTopology(`dlq-${id}`, id);
  await createConsumerTopics(topology.consumers[0]!);
  return topology;
}

/** DLQ records (100,000 unless told) of four interleaved error classes, as the runtime writes them. */
export async function fillDlq(consumer: ConsumerModel, count = RECORDS): Promise<void> {
  const classes = ['TimeoutError', 'SchemaError', 'TypeError', 'ConflictError'];
  const producer = benchKafka().producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  for (let start = 0; start < count; start += 4000) {
    const messages = Array.from({ length: Math.min(4000, count - start) }, (_, k) => {
      const i = start + k;
      const errorClass = classes[Math.floor(i / 3) % 4]!;
      return {
        partition: i % 3,
        key: `order-${i}`,
        value: JSON.stringify({ id: i, amount: i % 1000 }),
        headers: {
          [HEADERS.attempt]: '1',
          [HEADERS.originalTopic]: consumer.mainTopic.name,
          [HEADERS.originalPartition]: String(i % 3),
          [HEADERS.originalOffset]: String(i),
          [HEADERS.errorClass]: errorClass,
          [HEADERS.errorMessage]: `${errorClass} in order ${i}`,
        },
      };
    });
    await producer.send({ topic: consumer.dlq.name, acks: -1, messages });
  }
  await producer.disconnect();
}

/** Runs `work` and reports its duration and this process's peak RSS meanwhile. */
export async function measured<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; peakRssMb: number }> {
  global.gc?.();
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const started = performance.now();
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, ms: performance.now() - started, peakRssMb: peak / 2 ** 20 };
  } finally {
    clearInterval(sampler);
  }
}

/** Commits a replay group offset whose metadata lists offsets 1..2,000,000 as handled (one range). */
async function commitHugeRange(consumer: ConsumerModel): Promise<void> {
  const client = benchKafka().consumer({ groupId: consumer.groups.replay });
  await client.connect();
  await client.subscribe({ topics: [consumer.dlq.name], fromBeginning: true });
  const joined = new Promise<void>((resolve) => client.on(client.events.GROUP_JOIN, () => resolve()));
  await client.run({ autoCommit: false, eachMessage: async () => {} });
  await joined;
  await client.commitOffsets([{ topic: consumer.dlq.name, partition: 0, offset: '0', metadata: `{"f":"krt-handled/1","r":[["1","${HANDLED_RANGE}"]]}` } as never]);
  await client.disconnect();
}

export async function benchDlq(): Promise<DlqBenchResult> {
  const kafka = benchKafka();
  const consumer = await freshConsumer();
  await fillDlq(consumer);

  const inspect = await measured(async () => {
    const session = await DlqSession.open(kafka, consumer, 300_000);
    await session.close();
    // What inspect prints: the groups and every record, as text is built for the terminal.
    const lines = groupRecords(session.records).length + session.records.map((r) => JSON.stringify(recordJson(r))).length;
    return { count: session.records.length, lines };
  });
  if (inspect.value.count !== RECORDS) throw new Error(`inspect saw ${inspect.value.count} records, not ${RECORDS}`);

  const replay = await measured(async () => {
    const session = await DlqSession.open(kafka, consumer, 300_000);
    try {
      return (await replayRecords(kafka, session, session.records, { route: replayRoute(consumer), rate: 1_000_000, by: 'bench' })).replayed;
    } finally {
      await session.close();
    }
  });
  if (replay.value !== RECORDS) throw new Error(`replayed ${replay.value} records, not ${RECORDS}`);

  const monitored = await freshConsumer();
  await commitHugeRange(monitored);
  const metadata = `{"f":"krt-handled/1","r":[["1","${HANDLED_RANGE}"]]}`;
  const pure = await measured(async () => partitionBacklog(decodeHandled(0n, metadata), 0n, BigInt(HANDLED_RANGE + 1)));
  const monitor = createDlqMonitor(consumerDescriptor(monitored), { port: kafkajsMonitorPort(kafka, monitored.groups.monitor) });
  const polls: number[] = [];
  for (let i = 0; i < 3; i++) polls.push((await measured(() => monitor.poll())).ms);

  return {
    records: RECORDS,
    inspect: { recordsPerSecond: (RECORDS / inspect.ms) * 1000, peakRssMb: inspect.peakRssMb },
    replay: { recordsPerSecond: (RECORDS / replay.ms) * 1000, peakRssMb: replay.peakRssMb },
    monitorPollMs: polls.sort((a, b) => a - b)[1]!,
    handledStateMs: pure.ms,
    handledRangeOffsets: HANDLED_RANGE,
  };
}
