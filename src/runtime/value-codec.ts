import type { ConsumerDescriptor, JsonSchema } from './descriptor';
import { jsonSchemaProblem } from './json-schema-check';
import type { EachMessagePayload } from './port';
import { KrtError } from './krt-error';

/** Turns a record's value bytes into what the handler receives; throws (or rejects) when it cannot. */
export type ValueDecoder<Value = unknown> = (value: Buffer | null, record: EachMessagePayload) => Value | Promise<Value>;

/** A record whose value was decoded: `value` is what the consumer's codec made of `message.value`. */
export type DecodedRecord<Value> = EachMessagePayload & { readonly value: Value };

/**
 * A record's value its codec refused. Never retried: the same bytes fail the same way, so
 * it goes to the DLQ at attempt 1 with this name as `x-error-class` (see classify.ts).
 */
export class DeserializationError extends Error {
  override readonly name = 'DeserializationError';
}

/**
 * The decoder of a consumer: the one passed in, else the JSON Schema its descriptor
 * carries, else none (the handler reads `message.value`). A descriptor that names a
 * function needs it passed in: the generated package does so.
 */
export function valueDecoderFor(consumer: ConsumerDescriptor, decodeValue: ValueDecoder | undefined): ValueDecoder | undefined {
  if (decodeValue) return decodeValue;
  const codec = consumer.value;
  if (codec?.kind === 'json-schema') return jsonSchemaDecoder(codec.schema);
  if (codec?.kind === 'decode') {
    throw new KrtError(`consumer ${consumer.name} decodes its values with ${codec.export} from ${codec.module}; create it through its generated router package, or pass that function as decodeValue`);
  }
  return undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 JSON checked against `schema` (see json-schema-check.ts: the runtime needs no schema library). */
export function jsonSchemaDecoder(schema: JsonSchema): ValueDecoder {
  return (value) => {
    if (value === null) throw new DeserializationError('the record has no value (a tombstone), and the consumer expects JSON');
    let text: string;
    try {
      text = utf8.decode(value);
    } catch {
      throw new DeserializationError('the value is not valid UTF-8, so it cannot be JSON');
    }
    const parsed: unknown = JSON.parse(text);
    const problem = jsonSchemaProblem(schema, parsed);
    if (problem !== undefined) throw new DeserializationError(problem);
    return parsed;
  };
}

/**
 * The handler a consumer with a codec runs: the record's value decoded, then the user's
 * handler with it as `record.value`. A decoder that throws or rejects makes a
 * DeserializationError with its message, before the user's handler is called.
 */
export function decodingHandler(handler: (record: EachMessagePayload) => Promise<void>, decode: ValueDecoder | undefined): (record: EachMessagePayload) => Promise<void> {
  if (!decode) return handler;
  const refused = (error: unknown) => Promise.reject(new DeserializationError(messageOf(error), { cause: error }));
  return (record) => {
    let decoded: unknown;
    try {
      decoded = decode(record.message.value, record);
    } catch (error) {
      return refused(error);
    }
    const run = (value: unknown) => handler({ ...record, value } as DecodedRecord<unknown>);
    return isThenable(decoded) ? Promise.resolve(decoded).then(run, refused) : run(decoded);
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return 'the decoder threw a value that cannot be shown';
  }
}
