import { CONFLUENT_TYPES, confluentError } from '../runtime/confluent-errors';

// The installed client's own error class. In the broker project: its set-up installs the client, which npm ci may leave out, and its native binding loads on Node 24 alone.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { KafkaJSProtocolError } = require('@confluentinc/kafka-javascript/lib/kafkajs/_error.js') as { KafkaJSProtocolError: new (e: object, p: object) => Error };

describe('the runtime suites\u2019 stand-ins for the Confluent client\u2019s errors', () => {
  it.each(Object.keys(CONFLUENT_TYPES).map(Number))('code %i: the name, code, type and flags the installed client gives', (code) => {
    const real = new KafkaJSProtocolError({ message: `librdkafka error ${code}`, code }, { code });
    const shape = (e: Error) => ({ name: e.name, ...pick(e as unknown as Record<string, unknown>, ['code', 'type', 'retriable', 'fatal', 'abortable']) });
    expect(shape(confluentError(code))).toEqual(shape(real));
  });
});

function pick(e: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, e[k]]));
}
