import { randomBytes } from 'node:crypto';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import type { SpanContext } from '@opentelemetry/api';
import { KafkaJsInstrumentation } from '@opentelemetry/instrumentation-kafkajs';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Kafka } from 'kafkajs';
import { replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { TRACE_ATTRIBUTES, TRACE_DESTINATIONS, TRACE_LINKS, TRACER_NAME } from '../../src/naming/tracing';
import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import { eventually } from '../helpers/eventually';
import { kafkaAsAdmin } from '../helpers/kafka';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(180_000);

/** The service that produced the main-topic record. */
const PRODUCER: SpanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED, isRemote: true };

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

/** A consumer with a 1s and a 2s tier, its topics created as the admin. */
async function consumerOnBroker(): Promise<ConsumerModel> {
  const id = `tr-${randomBytes(3).toString('hex')}`;
  const model = compile(aTopology({ consumers: [aConsumer({ name: id, topic: { name: `${id}.main`, partitions: 2 }, ladder: ['1s', '2s'] })] })).model!.topologies[0]!.consumers[0]!;
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    await createTopicsWithLeaders(admin, [model.mainTopic, ...model.tiers, model.dlq, model.dlqAudit].map((t) => ({ topic: t.name, numPartitions: t.partitions, replicationFactor: 1 })));
  } finally {
    await admin.disconnect();
  }
  return model;
}

const ours = () => exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name === TRACER_NAME);
const linkOf = (span: ReadableSpan, kind: string) => span.links.find((l) => l.attributes?.[TRACE_ATTRIBUTES.link] === kind)?.context;
const ids = (c: SpanContext | undefined) => c && { traceId: c.traceId, spanId: c.spanId };

/**
 * One record's journey: it fails on the main topic, in the 1s tier and in the 2s tier,
 * reaches the DLQ, is replayed (the replay library call, as `krt dlq replay` makes it) and
 * succeeds. Returns the runtime's spans, in the order the attempts ended.
 */
async function journey(model: ConsumerModel): Promise<ReadableSpan[]> {
  const kafka = kafkaAsAdmin();
  const consumer = createRetryingConsumer(consumerDescriptor(model), {
    kafka: kafkajsPort(kafka),
    handler: async (record) => {
      if (record.message.headers?.[HEADERS.replayedFromDlq] === undefined) throw Object.assign(new Error('payment-svc 503'), { name: 'HTTPError', status: 503 });
    },
  });
  await consumer.start();
  try {
    const producer = kafka.producer();
    await producer.connect();
    const produced = trace.setSpanContext(ROOT_CONTEXT, PRODUCER);
    const headers: Record<string, string> = {};
    propagation.inject(produced, headers);
    await context.with(produced, () => producer.send({ topic: model.mainTopic.name, acks: -1, messages: [{ key: 'order-7', value: 'created', partition: 0, headers }] }));
    await producer.disconnect();
    await eventually('the attempt that sends the record to the DLQ', () => ours().find((s) => s.attributes[TRACE_ATTRIBUTES.destination] === TRACE_DESTINATIONS.dlq), 60_000);
    const session = await DlqSession.open(kafka, model);
    try {
      await replayRecords(kafka, session, session.records, { route: replayRoute(model), rate: 100, by: 'tracing-test' });
    } finally {
      await session.close();
    }
    await eventually('the replayed attempt', () => ours().find((s) => s.attributes[TRACE_ATTRIBUTES.destination] === TRACE_DESTINATIONS.done), 60_000);
  } finally {
    await consumer.stop();
  }
  return ours();
}

/** Every attempt links to the original producer context and to the attempt before it. */
function expectOneLinkedChain(spans: readonly ReadableSpan[], original: SpanContext, topics: { main: string; first: string; second: string }): void {
  expect(spans.map((s) => s.attributes['messaging.destination.name'])).toEqual([topics.main, topics.first, topics.second, topics.first]);
  expect(spans.map((s) => s.attributes[TRACE_ATTRIBUTES.destination])).toEqual(['tier', 'tier', 'dlq', 'done']);
  for (const [n, span] of spans.entries()) {
    expect(ids(linkOf(span, TRACE_LINKS.original))).toEqual(ids(original));
    if (n > 0) expect(ids(linkOf(span, TRACE_LINKS.previousHop))).toEqual(ids(spans[n - 1]!.spanContext()));
  }
}

describe('traces across every retry hop on a real broker', () => {
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());

  it("makes one linked chain, in one trace, of a record's fail, tier, tier, DLQ, replay and success", async () => {
    const model = await consumerOnBroker();
    const spans = await journey(model);
    expectOneLinkedChain(spans, PRODUCER, { main: model.mainTopic.name, first: model.tiers[0]!.name, second: model.tiers[1]!.name });
    expect(spans.every((s) => s.kind === SpanKind.CONSUMER && s.spanContext().traceId === PRODUCER.traceId)).toBe(true);
    expect(spans.map((s) => s.attributes[TRACE_ATTRIBUTES.attempt])).toEqual([1, 2, 3, 2]);
    expect(spans[3]!.attributes[TRACE_ATTRIBUTES.replayed]).toBe(true);
  });

  it('beside instrumentation-kafkajs, each delivery has one process span (the instrumentation\'s), under which the attempt keeps its links', async () => {
    const instrumentation = new KafkaJsInstrumentation();
    instrumentation.setTracerProvider(provider);
    // jest's module loader bypasses the require hook the instrumentation sets: patch kafkajs as that hook would.
    const [kafkajs] = instrumentation.getModuleDefinitions();
    kafkajs!.patch!({ Kafka } as never);
    try {
      const model = await consumerOnBroker();
      const spans = await journey(model);
      const all = exporter.getFinishedSpans();
      const theirs = all.filter((s) => s.instrumentationScope.name !== TRACER_NAME);
      // The record's producer context, as the instrumentation's send span rewrote it.
      const send = theirs.find((s) => s.kind === SpanKind.PRODUCER && s.attributes['messaging.destination.name'] === model.mainTopic.name)!;
      expect(send.parentSpanContext?.spanId).toBe(PRODUCER.spanId);
      expectOneLinkedChain(spans, send.spanContext(), { main: model.mainTopic.name, first: model.tiers[0]!.name, second: model.tiers[1]!.name });

      // Ours are internal spans under the instrumentation's: the only consumer spans are its process spans.
      expect(spans.every((s) => s.kind === SpanKind.INTERNAL && s.name.startsWith('attempt '))).toBe(true);
      expect(all.filter((s) => s.kind === SpanKind.CONSUMER).every((s) => s.instrumentationScope.name !== TRACER_NAME)).toBe(true);
      const byId = new Map(theirs.map((s) => [s.spanContext().spanId, s]));
      const parents = spans.map((s) => byId.get(s.parentSpanContext?.spanId ?? ''));
      // Tier records come one at a time (eachMessage): the attempt is a child of that delivery's process span.
      expect(parents.map((p) => p?.name)).toEqual([`poll ${model.mainTopic.name}`, `process ${model.tiers[0]!.name}`, `process ${model.tiers[1]!.name}`, `process ${model.tiers[0]!.name}`]);
      // The main topic comes in batches: the instrumentation made one process span for the record, beside ours.
      const mainProcess = theirs.filter((s) => s.name === `process ${model.mainTopic.name}`);
      expect(mainProcess).toHaveLength(1);
      expect(mainProcess[0]!.parentSpanContext?.spanId).toBe(parents[0]!.spanContext().spanId);
    } finally {
      kafkajs!.unpatch!({ Kafka } as never);
      instrumentation.disable();
    }
  });
});
