/**
 * Review h139: KAFKA_SSL takes only the exact text 'false' to turn TLS off; every other value
 * ('FALSE', '0', 'no', a typo like 'flase') silently means TLS.
 *
 * Seen on the test broker (plaintext SASL listener): `KAFKA_SSL=maybe krt dlq inspect ...`
 * waits 11 s and then says "krt spoke TLS (the default) ... set KAFKA_SSL=false", though the
 * user set it to something; KAFKA_SSL=0 or FALSE (what many tools accept) gets the same.
 * KAFKA_SASL_MECHANISM, beside it, is refused by name when it is not understood (exit 2).
 *
 * Code at fault: src/connection/kafka-connection.ts `sslEnabled` (`!== 'false'`).
 * Fixed: accept true/false case-insensitively (and 1/0, yes/no if wanted) and throw a
 * ConnectionSettingsError naming KAFKA_SSL and the value for anything else, as for the mechanism.
 */
import { Kafka } from 'kafkajs';
import { ConnectionSettingsError, kafkaFromEnv } from '../../src/connection/kafka-connection';

jest.mock('kafkajs', () => {
  const actual = jest.requireActual('kafkajs');
  return { ...actual, Kafka: jest.fn((config: unknown) => new actual.Kafka(config)) };
});

const base = { KAFKA_BOOTSTRAP_SERVERS: 'kafka-1:9093', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' };

it('KAFKA_SSL that is not true or false is refused by name, never taken for TLS', () => {
  const made = Kafka as unknown as jest.Mock;
  for (const value of ['FALSE', '0', 'no', 'flase']) {
    made.mockClear();
    let refused = false;
    try {
      kafkaFromEnv({ ...base, KAFKA_SSL: value });
    } catch (error) {
      refused = error instanceof ConnectionSettingsError && String((error as Error).message).includes('KAFKA_SSL');
    }
    const ssl = (made.mock.calls[0]?.[0] as { ssl?: unknown } | undefined)?.ssl;
    // Either refused with a message naming KAFKA_SSL, or understood as plaintext: never TLS by accident.
    if (value === 'flase') expect({ value, refused }).toEqual({ value, refused: true });
    else expect({ value, refusedOrPlaintext: refused || ssl === false }).toEqual({ value, refusedOrPlaintext: true });
  }
});
