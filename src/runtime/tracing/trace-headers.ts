import { context, isSpanContextValid, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { Context, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import { ORIGINAL_TRACE_CONTEXT_PREFIX, PREVIOUS_TRACE_CONTEXT_PREFIX } from '../../naming/headers';
import type { RawHeaders } from '../headers';

/** Header values as the propagator reads them: the last of a repeated header, bytes as UTF-8. */
function headerValue(headers: RawHeaders, name: string): string | undefined {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (value === undefined) return undefined;
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

/** The propagator's fields (`traceparent`, `tracestate`) under a prefix ('' for the record's own). */
function getter(prefix: string): TextMapGetter<RawHeaders> {
  return {
    keys: (headers) => Object.keys(headers).filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length)),
    get: (headers, key) => headerValue(headers, prefix + key),
  };
}

/** The W3C field by which a kept context is known (the propagator's other fields go with it). */
const ORIGINAL_TRACEPARENT = `${ORIGINAL_TRACE_CONTEXT_PREFIX}traceparent`;
const PREVIOUS_TRACEPARENT = `${PREVIOUS_TRACE_CONTEXT_PREFIX}traceparent`;

const ownGetter = getter('');
const originalGetter = getter(ORIGINAL_TRACE_CONTEXT_PREFIX);
const previousGetter = getter(PREVIOUS_TRACE_CONTEXT_PREFIX);

type OutgoingHeaders = Record<string, Buffer | string | (Buffer | string)[]>;

function setter(prefix: string): TextMapSetter<OutgoingHeaders> {
  return { set: (headers, key, value) => void (headers[prefix + key] = value) };
}

const ownSetter = setter('');
const previousSetter = setter(PREVIOUS_TRACE_CONTEXT_PREFIX);

/**
 * Whether the record's own trace context is its producer's, the original: so long as no
 * hop of ours kept an original (`x-original-*`) nor set the record's context
 * (`x-previous-*`, written with it). Decided by what the record carries, not by where it
 * is: a tier record that untraced hops wrote (tracing turned on later, an older version
 * first) still carries its producer's context as its own, and it is kept from then on.
 */
const ownIsOriginal = (headers: RawHeaders) => headers[ORIGINAL_TRACEPARENT] === undefined && headers[PREVIOUS_TRACEPARENT] === undefined;

/** The contexts a record's headers carry, each read once. */
export interface HopContexts {
  /** The record's own trace headers: its producer's, or the attempt that published it (a send span's, under a producer instrumentation). */
  readonly creation: Context;
  /** The main-topic record's producer context: the record's own until a traced hop kept it, the kept copy after. */
  readonly original: Context;
  /** The attempt that published the record, or its producer at the first hop (and on a tier record written untraced). */
  readonly previous: Context;
}

/** The context the record's own trace headers carry (the span's parent when no span is active). */
export function creationContext(headers: RawHeaders): Context {
  return propagation.extract(ROOT_CONTEXT, headers, ownGetter);
}

/** Read only for a recording span: without a provider nothing here runs. */
export function hopContexts(headers: RawHeaders, creation = creationContext(headers)): HopContexts {
  if (ownIsOriginal(headers)) return { creation, original: creation, previous: creation };
  const previous = propagation.extract(ROOT_CONTEXT, headers, previousGetter);
  return {
    creation,
    original: propagation.extract(ROOT_CONTEXT, headers, originalGetter),
    previous: trace.getSpanContext(previous) === undefined ? creation : previous,
  };
}

/**
 * The trace headers of a tier or DLQ record, set on its outgoing headers (the record's own
 * already copied there). When a span is active (the attempt's; a Router user's own), the
 * record carries it as its trace context and as `x-previous-*`, and the record's own
 * context is kept under `x-original-*` at the first traced hop (the first hop, or a later
 * one when the earlier ran untraced). With no active span nothing changes:
 * the record's trace headers pass through as they came.
 */
export function carryTraceContext(incoming: RawHeaders | undefined, outgoing: OutgoingHeaders): void {
  const active = context.active();
  const span = trace.getSpanContext(active);
  if (span === undefined || !isSpanContextValid(span)) return;
  const own = incoming ?? {};
  const fields = propagation.fields();
  if (ownIsOriginal(own)) {
    for (const field of fields) {
      const value = headerValue(own, field);
      if (value !== undefined) outgoing[ORIGINAL_TRACE_CONTEXT_PREFIX + field] = value;
    }
  }
  // The previous hop's fields go, so none of them (a tracestate) outlives the context it belonged to.
  for (const field of fields) {
    delete outgoing[field];
    delete outgoing[PREVIOUS_TRACE_CONTEXT_PREFIX + field];
  }
  propagation.inject(active, outgoing, ownSetter);
  propagation.inject(active, outgoing, previousSetter);
}
