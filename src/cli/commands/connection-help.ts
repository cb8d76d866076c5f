import { KAFKA_ENV } from '../../naming';

/**
 * The help line of a command that connects to Kafka: which variables, as which principal,
 * and its exit codes; `refused` names what else ends it with 1 (a request it refuses).
 */
export function connectionHelp(principal: string, refused?: string, usage = 'an unknown consumer or missing connection settings'): string {
  return `\nConnects to $${KAFKA_ENV.bootstrapServers} as $${KAFKA_ENV.saslUsername} / $${KAFKA_ENV.saslPassword} (${principal}; $${KAFKA_ENV.saslMechanism} defaults to plain, $${KAFKA_ENV.ssl}=false for a plaintext listener). Exit codes: 0 done, 1 spec or broker error${refused ? `, or ${refused}` : ''}, 2 usage error (${usage} among them).`;
}
