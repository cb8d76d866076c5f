import { context, isSpanContextValid, ProxyTracerProvider, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Context, Link, Span } from '@opentelemetry/api';
import { TRACE_ATTRIBUTES, TRACE_DESTINATIONS, TRACE_LINKS, TRACER_NAME } from '../../naming/tracing';
import type { ErrorKind } from '../classify';
import { describeError } from '../describe-error';
import type { ConsumerDescriptor } from '../descriptor';
import type { RoutedDestination } from '../destination-record';
import { truncate } from '../headers';
import type { ConsumedRecord } from '../router';
import { attemptAttributes, routedAttributes } from './span-attributes';
import { creationContext, hopContexts } from './trace-headers';
import type { HopContexts } from './trace-headers';

/**
 * One span per attempt at a record: started with the handler, ended where the record went
 * (done, a tier, the DLQ, or cut short). Without a registered tracer provider every call
 * is a no-op past the API's own non-recording span: no attributes, links or context are
 * built, and the handler runs as it would untraced.
 */
export interface AttemptSpans {
  /** Called as the consumer starts: the span active then (if any) is never taken for a delivery's own. */
  started(): void;
  /** The handler, each call an attempt under its own span. */
  traced(handler: (record: ConsumedRecord) => Promise<void>): (record: ConsumedRecord) => Promise<void>;
  /** Runs work (an in-place retry, the publish of the failure) inside the record's attempt span. */
  within<T>(record: ConsumedRecord, work: () => T): T;
  done(record: ConsumedRecord): void;
  routed(record: ConsumedRecord, error: unknown, destination: RoutedDestination, classify: { classify(error: unknown): ErrorKind }): void;
  /** Ends the attempt as interrupted if the work rejects (stop(), a rebalance); the same promise back. */
  endIfRejected<T>(record: ConsumedRecord, work: Promise<T>): Promise<T>;
}

const NO_HEADERS = Object.freeze({});

interface Attempt {
  readonly span: Span;
  readonly context: Context;
}

export function attemptSpans(consumer: ConsumerDescriptor): AttemptSpans {
  // A proxy: a provider registered after the consumer starts is used from then on.
  const tracer = trace.getTracer(TRACER_NAME);
  const processName = new Map([consumer.mainTopic, ...consumer.tiers.map((t) => t.topic)].map((topic) => [topic, `process ${topic}`]));
  const attemptName = new Map([consumer.mainTopic, ...consumer.tiers.map((t) => t.topic)].map((topic) => [topic, `attempt ${topic}`]));
  const attempts = new WeakMap<ConsumedRecord, Attempt>();

  /** The span active where the consumer was started: the client's loop inherits it, no delivery's own. */
  let startedUnder: Span | undefined;

  function start(record: ConsumedRecord): Attempt | undefined {
    if (noProviderRegistered()) return undefined;
    const active = context.active();
    const headers = record.message.headers ?? NO_HEADERS;
    // A span already active here is the delivery's own process span (an instrumentation's,
    // such as instrumentation-kafkajs's): ours is its child, an internal span, so that a
    // delivery has one process span. Otherwise ours is the process span, a child of the
    // context the record carries (the previous hop's), as for any single message. The span
    // start() ran under (a traced bootstrap) is active in every delivery the client's loop
    // makes, and is none of theirs.
    const activeSpan = trace.getSpan(active);
    const nested = activeSpan !== undefined && activeSpan !== startedUnder;
    const creation = nested ? undefined : creationContext(headers);
    const parent = creation ?? active;
    const span = nested
      ? tracer.startSpan(attemptName.get(record.topic) ?? `attempt ${record.topic}`, { kind: SpanKind.INTERNAL }, parent)
      : tracer.startSpan(processName.get(record.topic) ?? `process ${record.topic}`, { kind: SpanKind.CONSUMER }, parent);
    if (!madeByProvider(span, parent)) return undefined;
    // A span sampled out records nothing, but its context still propagates: the handler's
    // own spans then join the producer's (unsampled) trace, never start orphan root traces.
    if (span.isRecording()) {
      span.setAttributes(attemptAttributes(consumer, record));
      span.addLinks(linksOf(hopContexts(headers, creation)));
    }
    const previous = attempts.get(record);
    if (previous) end(record, previous, TRACE_DESTINATIONS.interrupted);
    const attempt = { span, context: trace.setSpan(parent, span) };
    attempts.set(record, attempt);
    return attempt;
  }

  function end(record: ConsumedRecord, attempt: Attempt, destination: string): void {
    attempts.delete(record);
    attempt.span.setAttribute(TRACE_ATTRIBUTES.destination, destination);
    attempt.span.end();
  }

  return {
    started() {
      startedUnder = trace.getSpan(context.active());
    },
    traced(handler) {
      return (record) => {
        const attempt = start(record);
        return attempt === undefined ? handler(record) : context.with(attempt.context, handler, undefined, record);
      };
    },
    within(record, work) {
      const attempt = attempts.get(record);
      return attempt === undefined ? work() : context.with(attempt.context, work);
    },
    done(record) {
      const attempt = attempts.get(record);
      if (attempt) end(record, attempt, TRACE_DESTINATIONS.done);
    },
    routed(record, error, destination, router) {
      const attempt = attempts.get(record);
      if (attempt === undefined) return;
      attempts.delete(record);
      attempt.span.setAttributes(routedAttributes(error, destination, router.classify(error)));
      attempt.span.setStatus({ code: SpanStatusCode.ERROR, message: truncate(describeError(error).message) });
      attempt.span.end();
    },
    endIfRejected(record, work) {
      const attempt = attempts.get(record);
      if (attempt === undefined) return work;
      return work.catch((error: unknown) => {
        if (attempts.get(record) === attempt) end(record, attempt, TRACE_DESTINATIONS.interrupted);
        throw error;
      });
    },
  };
}

/**
 * No tracer provider is registered (the API's proxy has no delegate): every span would be
 * the API's no-op, which still cost a visible share of the wrapped consumer's time per record
 * (docs/benchmarks.md). Checked per record: a provider registered later is used from then on.
 */
function noProviderRegistered(): boolean {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider && provider.getDelegateTracer(TRACER_NAME) === undefined;
}

/**
 * Whether a provider made the span (recording, or sampled out with its own span id), not
 * the API's no-op tracer, which hands back the parent's context: without a provider the
 * handler runs exactly as it would untraced.
 */
function madeByProvider(span: Span, parent: Context): boolean {
  if (span.isRecording()) return true;
  const own = span.spanContext();
  return isSpanContextValid(own) && own.spanId !== trace.getSpanContext(parent)?.spanId;
}

/** Links to the original producer and to the previous hop; one link when they are the same context. */
function linksOf(hops: HopContexts): Link[] {
  const links: Link[] = [];
  const original = trace.getSpanContext(hops.original);
  const previous = trace.getSpanContext(hops.previous);
  if (original) links.push({ context: original, attributes: { [TRACE_ATTRIBUTES.link]: TRACE_LINKS.original } });
  if (previous && previous.spanId !== original?.spanId) links.push({ context: previous, attributes: { [TRACE_ATTRIBUTES.link]: TRACE_LINKS.previousHop } });
  return links;
}
