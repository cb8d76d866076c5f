import { headerMap } from '../headers';
import type { RawHeaders } from '../headers';

type HeaderValue = Buffer | string;

/** A header value as a client decodes it (`null`: a header without a value); a prototype's function or object is none. */
const isHeaderValue = (v: unknown): v is HeaderValue => Buffer.isBuffer(v) || typeof v === 'string' || v === null;

/**
 * A record's headers as the runtime reads them: every name an own key of a map without a
 * prototype, with the record's values only. kafkajs decodes headers onto a plain `{}` and
 * takes a name it finds there (`constructor`, `toString`, `__proto__`: Object.prototype's)
 * as a repeat, so such a header arrives as an array holding the prototype's member and its
 * bytes. A repeated header keeps its values in order (readers say which wins: the last of
 * our `x-*`, the first of Spring's original-*). (The Confluent client loses a header named
 * `__proto__` below its KafkaJS API, where nothing of it reaches an adapter.)
 */
export function ownHeaders(raw: RawHeaders | undefined): RawHeaders | undefined {
  if (raw === undefined || raw === null) return raw;
  const out = headerMap<HeaderValue | HeaderValue[]>();
  for (const name of Object.keys(raw)) {
    const value: unknown = raw[name];
    const values = (Array.isArray(value) ? value : [value]).filter(isHeaderValue);
    if (values.length === 1) out[name] = values[0]!;
    else if (values.length > 1) out[name] = values;
  }
  return out;
}

/** The same message, its headers read as ownHeaders() reads them; messages are the client's, changed in place. */
export function withOwnHeaders<M extends { headers?: RawHeaders }>(message: M): M {
  if (message.headers !== undefined) (message as { headers?: RawHeaders }).headers = ownHeaders(message.headers);
  return message;
}
