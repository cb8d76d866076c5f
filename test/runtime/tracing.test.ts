import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import type { SpanContext } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { replayRecords } from '../../src/dlq/replay';
import { replayRoute } from '../../src/dlq/replay-route';
import { DlqSession } from '../../src/dlq/session';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import { HEADERS, ORIGINAL_TRACE_CONTEXT_PREFIX, PREVIOUS_TRACE_CONTEXT_PREFIX } from '../../src/naming/headers';
import { TRACE_ATTRIBUTES, TRACE_LINKS, TRACER_NAME } from '../../src/naming/tracing';
import { createRouter } from '../../src/runtime/router';
import type { OutgoingMessage } from '../../src/runtime/port';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from './dlq-kafka-double';
import { harness, httpError } from './harness';

const model = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
const consumer = consumerDescriptor(model);
const [tier1m, tier10m] = consumer.tiers;

/** The context of the service that produced the main-topic record, with a vendor's tracestate. */
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const TRACESTATE = 'vendor=abc';
const producedHeaders = { traceparent: TRACEPARENT, tracestate: TRACESTATE };

/** Fails until `krt dlq replay` sent the record back, and notes the span each attempt ran under. */
function failsUntilReplayed(activeSpans: (string | undefined)[]) {
  return async (record: { message: { headers?: Record<string, unknown> } }) => {
    activeSpans.push(trace.getActiveSpan()?.spanContext().spanId);
    if (record.message.headers?.[HEADERS.replayedFromDlq] === undefined) throw httpError(503, 'payment-svc 503');
  };
}

/** What a producer instrumentation's send span does to a record: it replaces the record's traceparent with its own. */
const SEND_SPAN_ID = '53e4d5e9a0b1c2d3';
const sentUnderInstrumentation = (headers: Record<string, Buffer | string>) => ({ ...headers, traceparent: String(headers.traceparent).replace(/-[0-9a-f]{16}-01$/, `-${SEND_SPAN_ID}-01`) });

/**
 * Sends the consumer's DLQ records back through the replay library call, onto the first
 * tier of the in-memory broker, as a replay tool under a producer instrumentation would.
 */
async function replayDlq(h: ReturnType<typeof harness>): Promise<void> {
  const double = new DlqKafkaDouble();
  for (const topic of [model.mainTopic, ...model.tiers, model.dlq, model.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  for (const r of h.broker.records(consumer.dlqTopic)) double.append(model.dlq.name, 0, { key: r.key, value: r.value, headers: r.headers });
  const kafka = double.kafka();
  const session = await DlqSession.open(kafka, model);
  await replayRecords(kafka, session, session.records, { route: replayRoute(model), rate: 100, by: 'tester', clock: { now: () => 0, sleep: async () => {} } });
  await session.close();
  for (const m of double.messages(tier1m!.topic)) h.broker.append(tier1m!.topic, { key: m.key, value: m.value, headers: sentUnderInstrumentation(m.headers), partition: m.partition });
}

const linkOf = (span: ReadableSpan, kind: string) => span.links.find((l) => l.attributes?.[TRACE_ATTRIBUTES.link] === kind)?.context;
const ids = (c: SpanContext | undefined) => c && { traceId: c.traceId, spanId: c.spanId };

describe('tracing with a registered tracer provider', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it('makes one linked chain of a record that fails on main, waits in two tiers, reaches the DLQ and succeeds after a replay', async () => {
    const active: (string | undefined)[] = [];
    const h = harness(consumer, failsUntilReplayed(active));
    h.produce('order-7', 'created', 0, producedHeaders);
    await h.retrying.start();
    await h.broker.run();
    await replayDlq(h);
    await h.broker.run();
    await h.retrying.stop();

    const spans = exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name === TRACER_NAME);
    expect(spans.map((s) => s.name)).toEqual([`process ${consumer.mainTopic}`, `process ${tier1m!.topic}`, `process ${tier10m!.topic}`, `process ${tier1m!.topic}`]);
    expect(spans.every((s) => s.kind === SpanKind.CONSUMER)).toBe(true);
    // Each handler ran inside its attempt's span, so the service's own spans are its children.
    expect(active).toEqual(spans.map((s) => s.spanContext().spanId));

    const producer = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    for (const [n, span] of spans.entries()) {
      expect(ids(linkOf(span, TRACE_LINKS.original))).toEqual(producer);
      expect(linkOf(span, TRACE_LINKS.original)?.traceState?.serialize()).toBe(TRACESTATE);
      // One trace: every attempt continues the hop before it (the first, its producer's).
      expect(span.spanContext().traceId).toBe(producer.traceId);
      // The replayed attempt's parent is the replay's send span; its link still names the attempt before.
      expect(span.parentSpanContext?.spanId).toBe(n === 0 ? producer.spanId : n === 3 ? SEND_SPAN_ID : spans[n - 1]!.spanContext().spanId);
      if (n === 0) expect(span.links).toHaveLength(1);
      else expect(ids(linkOf(span, TRACE_LINKS.previousHop))).toEqual(ids(spans[n - 1]!.spanContext()));
    }

    expect(spans.map((s) => [s.attributes[TRACE_ATTRIBUTES.attempt], s.attributes[TRACE_ATTRIBUTES.tier], s.attributes[TRACE_ATTRIBUTES.destination], s.attributes[TRACE_ATTRIBUTES.destinationTier]])).toEqual([
      [1, undefined, 'tier', '1m'],
      [2, '1m', 'tier', '10m'],
      [3, '10m', 'dlq', undefined],
      [2, '1m', 'done', undefined],
    ]);
    expect(spans[0]!.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': consumer.mainTopic,
      'messaging.consumer.group.name': consumer.groups.main,
      'messaging.destination.partition.id': '0',
      'messaging.kafka.offset': 0,
      'messaging.kafka.message.key': 'order-7',
      'error.type': 'HTTPError',
      [TRACE_ATTRIBUTES.consumer]: consumer.name,
      [TRACE_ATTRIBUTES.classification]: 'transient-long',
      [TRACE_ATTRIBUTES.errorName]: 'HTTPError',
    });
    expect(spans[1]!.attributes['messaging.consumer.group.name']).toBe(consumer.groups.retry);
    expect(spans[3]!.attributes[TRACE_ATTRIBUTES.replayed]).toBe(true);
    expect(spans[3]!.attributes['error.type']).toBeUndefined();

    // The DLQ record names the attempt that sent it there, and keeps the original's context.
    const [dead] = h.broker.records(consumer.dlqTopic);
    expect(dead!.headers.traceparent).toBe(`00-${producer.traceId}-${spans[2]!.spanContext().spanId}-01`);
    expect(dead!.headers[`${PREVIOUS_TRACE_CONTEXT_PREFIX}traceparent`]).toBe(dead!.headers.traceparent);
    expect(dead!.headers[`${ORIGINAL_TRACE_CONTEXT_PREFIX}traceparent`]).toBe(TRACEPARENT);
    expect(dead!.headers[`${ORIGINAL_TRACE_CONTEXT_PREFIX}tracestate`]).toBe(TRACESTATE);
  });

  it("writes a Router user's own active span as the trace context of the record it publishes, and keeps a second hop's original", async () => {
    const sent: OutgoingMessage[] = [];
    const router = createRouter(consumer, { producer: { connect: async () => {}, disconnect: async () => {}, send: async ({ messages }) => void sent.push(...messages) } });
    const record = { topic: consumer.mainTopic, partition: 0, message: { key: null, value: null, offset: '3', timestamp: '0', headers: producedHeaders } };
    const theirs = trace.getTracer('their-loop').startSpan('handle order');
    const error = httpError(503);
    const destination = router.decide(record, error, 1) as Parameters<typeof router.publish>[2];
    await context.with(trace.setSpan(context.active(), theirs), () => router.publish(record, error, destination));
    theirs.end();
    expect(sent[0]!.headers.traceparent).toBe(`00-${theirs.spanContext().traceId}-${theirs.spanContext().spanId}-01`);
    // Their span has no tracestate: the producer's does not stay beside a context it is not part of.
    expect(sent[0]!.headers.tracestate).toBeUndefined();
    expect(sent[0]!.headers[`${ORIGINAL_TRACE_CONTEXT_PREFIX}traceparent`]).toBe(TRACEPARENT);

    const tierRecord = { topic: tier1m!.topic, partition: 0, message: { key: null, value: null, offset: '0', timestamp: '0', headers: sent[0]!.headers as Record<string, string> } };
    const again = trace.getTracer('their-loop').startSpan('handle order again');
    await context.with(trace.setSpan(context.active(), again), () => router.publish(tierRecord, error, router.decide(tierRecord, error, 1) as Parameters<typeof router.publish>[2]));
    expect(sent[1]!.headers[`${ORIGINAL_TRACE_CONTEXT_PREFIX}traceparent`]).toBe(TRACEPARENT);
    expect(sent[1]!.headers[`${PREVIOUS_TRACE_CONTEXT_PREFIX}traceparent`]).toBe(`00-${again.spanContext().traceId}-${again.spanContext().spanId}-01`);
  });

  it('gives a record produced without trace context a new trace per first attempt and no links', async () => {
    exporter.reset();
    const h = harness(consumer, async () => {
      throw httpError(503);
    });
    h.produce('order-8', 'created', 0);
    await h.retrying.start();
    await h.broker.run({ until: 1_000_000 + 60_000 });
    await h.retrying.stop();
    const [first, second] = exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name === TRACER_NAME);
    expect(first!.links).toEqual([]);
    expect(second!.links.map((l) => [l.attributes?.[TRACE_ATTRIBUTES.link], l.context.spanId])).toEqual([[TRACE_LINKS.previousHop, first!.spanContext().spanId]]);
    expect(h.broker.records(tier1m!.topic)[0]!.headers[`${ORIGINAL_TRACE_CONTEXT_PREFIX}traceparent`]).toBeUndefined();
  });
});

describe('tracing without a tracer provider', () => {
  it('changes nothing: the handler runs outside any span and the trace headers travel as the producer wrote them', async () => {
    const withCalls = jest.spyOn(context, 'with');
    const started: boolean[] = [];
    const getTracer = trace.getTracer.bind(trace);
    jest.spyOn(trace, 'getTracer').mockImplementation((...args) => {
      const tracer = getTracer(...args);
      return {
        ...tracer,
        startSpan: (...s: Parameters<typeof tracer.startSpan>) => {
          const span = tracer.startSpan(...s);
          started.push(span.isRecording());
          return span;
        },
        startActiveSpan: tracer.startActiveSpan.bind(tracer),
      } as typeof tracer;
    });
    const active: (string | undefined)[] = [];
    const h = harness(consumer, failsUntilReplayed(active));
    h.produce('order-9', 'created', 0, producedHeaders);
    await h.retrying.start();
    await h.broker.run();
    await h.retrying.stop();
    expect(active).toEqual([undefined, undefined, undefined]);
    expect(started).toEqual([]); // not even the API's no-op span is made per record
    expect(withCalls).not.toHaveBeenCalled();
    const [dead] = h.broker.records(consumer.dlqTopic);
    expect(dead!.headers.traceparent).toBe(TRACEPARENT);
    expect(dead!.headers.tracestate).toBe(TRACESTATE);
    expect(Object.keys(dead!.headers).filter((k) => k.endsWith('-traceparent') || k.endsWith('-tracestate'))).toEqual([]);
  });
});
