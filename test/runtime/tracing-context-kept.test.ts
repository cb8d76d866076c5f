import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import { ORIGINAL_TRACE_CONTEXT_PREFIX } from '../../src/naming/headers';
import { TRACE_ATTRIBUTES, TRACE_LINKS, TRACER_NAME } from '../../src/naming/tracing';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { harness, httpError } from './harness';

/**
 * #26 part 1: the producer's context must travel with a record through every
 * hop, whichever hops were traced. A team turns tracing on (registers a provider) while
 * records already wait in a tier, or a fleet's first hop runs untraced (an older version,
 * a service without a provider): the later traced hops must still link to the producer.
 */
const model = compile(aTopology({ consumers: [aConsumer({ ladder: ['1m', '10m'] })] })).model!.topologies[0]!.consumers[0]!;
const consumer = consumerDescriptor(model);
const [tier1m] = consumer.tiers;

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const producer = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
const linkOf = (span: ReadableSpan, kind: string) => span.links.find((l) => l.attributes?.[TRACE_ATTRIBUTES.link] === kind)?.context;

describe('a provider registered while a record waits in a tier', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  // Once a defect, fixed in #26 (src/runtime/tracing/trace-headers.ts:39 and :80): the producer's context is kept as
  // x-original-* only when the record has no x-attempt ("fromProducer"). A tier record written by an
  // untraced hop carries the producer's traceparent as its own but no x-original-*, so the first traced
  // hop links the producer as the *previous hop* (not the original) and then overwrites traceparent with
  // its own span: from the next hop on (and on the DLQ record) the producer's context is gone for good.
  // Class: "original" is decided by where the record is (first hop or not), not by whether an original
  // was already kept. Fix: keep the own context as x-original-* whenever the record carries no
  // x-original-traceparent, and read it as the original in hopContexts likewise.
  it('links every traced attempt, and the DLQ record, to the producer that made the record', async () => {
    const h = harness(consumer, async () => {
      throw httpError(503);
    });
    h.produce('order-1', 'created', 0, { traceparent: TRACEPARENT });
    await h.retrying.start();
    // The first hops run untraced: the record reached a tier before tracing was on.
    await h.broker.run({ until: 1_000_000 + 1_000 });
    expect(h.broker.records(tier1m!.topic)).toHaveLength(1);
    expect(h.broker.records(consumer.dlqTopic)).toHaveLength(0);
    provider.register();
    await h.broker.run();
    await h.retrying.stop();

    const spans = exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name === TRACER_NAME);
    expect(spans.length).toBeGreaterThan(0);
    const [dead] = h.broker.records(consumer.dlqTopic);
    expect(dead!.headers[`${ORIGINAL_TRACE_CONTEXT_PREFIX}traceparent`]).toBe(TRACEPARENT);
    for (const span of spans) expect(linkOf(span, TRACE_LINKS.original)).toMatchObject(producer);
  });
});

describe('a record whose producer did not sample its trace (traceparent flags 00)', () => {
  const exporter = new InMemorySpanExporter();
  // NodeTracerProvider's default sampler is ParentBased(AlwaysOn): a child of an unsampled parent is not sampled.
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  // Once a defect, fixed in #26 (src/runtime/tracing/attempt-spans.ts:151 `if (!span.isRecording()) return undefined;` with
  // traced() at :171): when the attempt span is not recording because the producer's trace was sampled
  // out, the handler runs outside any context instead of inside the (unsampled) attempt's. The service's
  // own spans (its HTTP and database calls) then start new *root* traces, which the default sampler
  // records: every unsampled record yields orphan traces, and the traceparent it sends downstream no
  // longer names the producer's trace. Class: "not recording" is taken to mean "no provider"; the
  // context must still propagate. Fix: skip the attributes and links when the span is not recording,
  // but still run the handler under trace.setSpan(parent, span) whenever the span context is valid.
  it("runs the handler in the producer's (unsampled) trace, so the service's own spans join it", async () => {
    const seen: { traceId?: string; sampled?: boolean }[] = [];
    const h = harness(consumer, async () => {
      const own = trace.getTracer('payment-client').startSpan('POST /charge');
      seen.push({ traceId: own.spanContext().traceId, sampled: own.isRecording() });
      own.end();
    });
    h.produce('order-2', 'created', 0, { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00' });
    await h.retrying.start();
    await h.broker.run();
    await h.retrying.stop();
    expect(seen).toEqual([{ traceId: producer.traceId, sampled: false }]);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('a consumer started inside an active span (a traced bootstrap, an admin request that starts it)', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  // Once a defect, fixed in #26 (src/runtime/tracing/attempt-spans.ts:145 `nested = trace.getSpan(active) !== undefined`): any
  // span active when a record arrives is taken for an instrumentation's process span of that delivery.
  // A client's fetch loop inherits the context its run() was called in (AsyncLocalStorage follows the
  // promise chain), so a consumer started under a bootstrap span makes every attempt of every record an
  // INTERNAL child of that one long-ended span: no attempt continues its producer's trace (no parent, and
  // the process span is missing). Class: "a span is active" is read as "this delivery's span is active".
  // Fix: remember the context start() was called in and ignore it (or run the client's loop under
  // ROOT_CONTEXT), treating as nested only a span that began after the record was fetched.
  it("still makes each attempt a process span in its producer's trace", async () => {
    const h = harness(consumer, async () => {});
    h.produce('order-3', 'created', 0, { traceparent: TRACEPARENT });
    const bootstrap = trace.getTracer('their-app').startSpan('bootstrap');
    await context.with(trace.setSpan(context.active(), bootstrap), async () => {
      await h.retrying.start();
      bootstrap.end();
      await h.broker.run();
    });
    await h.retrying.stop();
    const [attempt] = exporter.getFinishedSpans().filter((s) => s.instrumentationScope.name === TRACER_NAME);
    expect(attempt!.kind).toBe(SpanKind.CONSUMER);
    expect(attempt!.spanContext().traceId).toBe(producer.traceId);
    expect(attempt!.parentSpanContext?.spanId).toBe(producer.spanId);
  });
});
