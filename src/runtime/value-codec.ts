import type { ConsumerDescriptor, JsonSchema } from './descriptor';
import { safeField, safeText } from './describe-error';
import { jsonSchemaChecker } from './json-schema-check';
import type { EachMessagePayload } from './port';
import { KrtError } from './krt-error';

/**
 * Turns a record's value bytes into what the handler receives. It refuses bytes by throwing
 * (or rejecting with) a DeserializationError, e.g. through `refuse()`: the record goes to the
 * DLQ at attempt 1. Any other error (a Schema Registry that answers 503) is a failure to run,
 * not a verdict on the bytes, and the consumer's error policy routes it like a handler's.
 */
export type ValueDecoder<Value = unknown> = (value: Buffer | null, record: EachMessagePayload) => Value | Promise<Value>;

/** A record whose value was decoded: `value` is what the consumer's codec made of `message.value`. */
export type DecodedRecord<Value> = EachMessagePayload & { readonly value: Value };

/** The value a handler's record carries (`unknown` for a record without one): what its decoder must return. */
export type ValueOf<Received> = Received extends { readonly value: infer Value } ? Value : unknown;

/**
 * A record's value its codec refused. Never retried: the same bytes fail the same way, so
 * it goes to the DLQ at attempt 1 with this name as `x-error-class` (see classify.ts).
 */
export class DeserializationError extends Error {
  override readonly name = 'DeserializationError';
}

/** Refuses a record's value from a decoder: `refuse('not an Order: amount is missing')`. */
export function refuse(reason: string, cause?: unknown): never {
  throw new DeserializationError(reason, cause === undefined ? undefined : { cause });
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

/**
 * UTF-8 JSON checked against `schema` (see json-schema-check.ts: the runtime needs no schema
 * library). A tombstone (no value) is null: the handler gets it when the schema accepts null
 * (`.nullable()`), and the schema's refusal of null refuses it otherwise.
 */
export function jsonSchemaDecoder(schema: JsonSchema): ValueDecoder {
  // Compiled once per consumer: the schema's patterns are not rebuilt per record.
  const problemOf = jsonSchemaChecker(schema);
  return (value) => {
    if (value === null) {
      const problem = problemOf(null);
      if (problem !== undefined) refuse(`the record has no value (a tombstone), and the consumer's schema refuses null: ${problem}`);
      return null;
    }
    let text: string;
    try {
      text = utf8.decode(value);
    } catch {
      return refuse('the value is not valid UTF-8, so it cannot be JSON');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return refuse(`the value is not JSON (${safeText(safeField(error, 'message'))})`);
    }
    const problem = problemOf(parsed);
    if (problem !== undefined) refuse(problem);
    return parsed;
  };
}

/**
 * The handler a consumer with a codec runs: the record's value decoded, then the user's
 * handler with it as `record.value`. One promise chain holds the whole decode step (the call,
 * reading the result's `then`, its rejection), so nothing a decoder does escapes it: a
 * refusal becomes a DeserializationError whose message is always readable, and any other
 * error is passed on as thrown, for the consumer's error policy.
 */
export function decodingHandler(handler: (record: EachMessagePayload) => Promise<void>, decode: ValueDecoder | undefined): (record: EachMessagePayload) => Promise<void> {
  if (!decode) return handler;
  return (record) =>
    new Promise<unknown>((resolve) => resolve(decode(record.message.value, record))).then(
      (value) => handler({ ...record, value } as DecodedRecord<unknown>),
      (error: unknown) => Promise.reject(isRefusal(error) ? new DeserializationError(messageOf(error), { cause: error }) : error),
    );
}

/** A refusal of the bytes: a DeserializationError, of this copy of the runtime or another (by name, as classify.ts reads it). */
function isRefusal(error: unknown): boolean {
  return safeField(error, 'name') === 'DeserializationError';
}

function messageOf(error: unknown): string {
  const message = safeField(error, 'message');
  return typeof message === 'string' ? message : 'the decoder refused the value with a message that cannot be read';
}
