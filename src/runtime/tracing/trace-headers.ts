import { context, isSpanContextValid, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { Context, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import { HEADERS, ORIGINAL_TRACE_CONTEXT_PREFIX } from '../../naming/headers';
import type { RawHeaders } from '../headers';

/** Header values as the propagator reads them: the last of a repeated header, bytes as UTF-8. */
const headerGetter: TextMapGetter<RawHeaders> = {
  keys: (headers) => Object.keys(headers),
  get(headers, key) {
    const raw = headers[key];
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (value === undefined) return undefined;
    return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  },
};

/** The same fields under the original's prefix. */
const originalGetter: TextMapGetter<RawHeaders> = {
  keys: (headers) => Object.keys(headers).filter((k) => k.startsWith(ORIGINAL_TRACE_CONTEXT_PREFIX)).map((k) => k.slice(ORIGINAL_TRACE_CONTEXT_PREFIX.length)),
  get: (headers, key) => headerGetter.get(headers, ORIGINAL_TRACE_CONTEXT_PREFIX + key),
};

type OutgoingHeaders = Record<string, Buffer | string | (Buffer | string)[]>;

const headerSetter: TextMapSetter<OutgoingHeaders> = {
  set: (headers, key, value) => void (headers[key] = value),
};

/**
 * A record no hop of ours wrote (tier and DLQ records, and replayed ones, all carry
 * `x-attempt`): its own trace context is its producer's, the original.
 */
const fromProducer = (headers: RawHeaders) => headers[HEADERS.attempt] === undefined;

/** The context the record's own headers carry: its producer's, or the attempt that published it. */
export function previousHopContext(headers: RawHeaders): Context {
  return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
}

/** The main-topic record's producer context: the record's own at its first hop, the kept copy after. */
export function originalContext(headers: RawHeaders): Context {
  return fromProducer(headers) ? previousHopContext(headers) : propagation.extract(ROOT_CONTEXT, headers, originalGetter);
}

/**
 * The trace headers of a tier or DLQ record, set on its outgoing headers (the record's own
 * already copied there). When a span is active (the attempt's; a Router user's own), the
 * record carries it as its trace context, and at the first hop the record's own context
 * is kept under `x-original-*`. With no active span nothing changes: the record's own
 * trace headers pass through as they came.
 */
export function carryTraceContext(incoming: RawHeaders | undefined, outgoing: OutgoingHeaders): void {
  const active = context.active();
  const span = trace.getSpanContext(active);
  if (span === undefined || !isSpanContextValid(span)) return;
  const own = incoming ?? {};
  const fields = propagation.fields();
  if (fromProducer(own)) {
    for (const field of fields) {
      const value = headerGetter.get(own, field);
      if (value !== undefined) outgoing[ORIGINAL_TRACE_CONTEXT_PREFIX + field] = value;
    }
  }
  // The previous hop's fields go, so none of them (a tracestate) outlives the context it belonged to.
  for (const field of fields) delete outgoing[field];
  propagation.inject(active, outgoing, headerSetter);
}
