/**
 * Review h140: KAFKA_BOOTSTRAP_SERVERS is split on commas as it is: a trailing or doubled comma
 * (a list templated in a CI job or a Helm value, `kafka-1:9093,kafka-2:9093,`) hands kafkajs
 * an empty broker, and a value of spaces or commas alone passes the "is it set" check.
 *
 * Seen: kafkaFromEnv({ KAFKA_BOOTSTRAP_SERVERS: 'kafka-1:9093,' ... }) makes a client of brokers
 * ['kafka-1:9093', '']; kafkajs picks a seed broker at random, so about every other command
 * first tries to connect to '' and fails or waits its retries; with ' , ' nothing names a broker
 * and the command ends in "no broker answered" instead of the settings error that names the
 * variable (exit 2).
 *
 * Code at fault: src/connection/kafka-connection.ts kafkaFromEnv (`brokers.split(',').map(trim)`).
 * Class: an env value parsed loosely (as KAFKA_SSL was, h139).
 * Fixed: empty entries are dropped, and a value naming no broker is refused by name.
 */
import { Kafka } from 'kafkajs';
import { ConnectionSettingsError, kafkaFromEnv } from '../../src/connection/kafka-connection';

jest.mock('kafkajs', () => {
  const actual = jest.requireActual('kafkajs');
  return { ...actual, Kafka: jest.fn((config: unknown) => new actual.Kafka(config)) };
});

const base = { KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' };

it('KAFKA_BOOTSTRAP_SERVERS with a trailing or doubled comma names only its brokers', () => {
  const made = Kafka as unknown as jest.Mock;
  made.mockClear();
  kafkaFromEnv({ ...base, KAFKA_BOOTSTRAP_SERVERS: 'kafka-1:9093,, kafka-2:9093 ,' });
  expect((made.mock.calls[0]![0] as { brokers: string[] }).brokers).toEqual(['kafka-1:9093', 'kafka-2:9093']);
});

it('KAFKA_BOOTSTRAP_SERVERS of spaces and commas alone is refused by name', () => {
  for (const value of [' ', ' , ']) {
    expect(() => kafkaFromEnv({ ...base, KAFKA_BOOTSTRAP_SERVERS: value })).toThrow(ConnectionSettingsError);
  }
});
