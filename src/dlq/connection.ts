import { Kafka, logLevel } from 'kafkajs';
import type { SASLOptions } from 'kafkajs';
import { KAFKA_ENV } from '../naming';

export class ConnectionSettingsError extends Error {}

/** A kafkajs client from the environment the runbooks tell people to set. */
export function kafkaFromEnv(env: NodeJS.ProcessEnv = process.env, clientId = 'krt'): Kafka {
  const brokers = env[KAFKA_ENV.bootstrapServers];
  if (!brokers) throw new ConnectionSettingsError(`set ${KAFKA_ENV.bootstrapServers} to the brokers, e.g. 'kafka-1:9093,kafka-2:9093'`);
  const username = env[KAFKA_ENV.saslUsername];
  const password = env[KAFKA_ENV.saslPassword];
  if (!username || !password) {
    throw new ConnectionSettingsError(`set ${KAFKA_ENV.saslUsername} and ${KAFKA_ENV.saslPassword} to the replay principal's credentials`);
  }
  const mechanism = (env[KAFKA_ENV.saslMechanism] ?? 'plain').toLowerCase();
  if (!['plain', 'scram-sha-256', 'scram-sha-512'].includes(mechanism)) {
    throw new ConnectionSettingsError(`${KAFKA_ENV.saslMechanism} must be plain, scram-sha-256 or scram-sha-512, not '${mechanism}'`);
  }
  return new Kafka({
    clientId,
    brokers: brokers.split(',').map((b) => b.trim()),
    ssl: (env[KAFKA_ENV.ssl] ?? 'true') !== 'false',
    sasl: { mechanism, username, password } as SASLOptions,
    logLevel: logLevel.NOTHING,
    retry: { retries: 5 },
  });
}
