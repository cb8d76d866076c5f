import { Kafka, logLevel } from 'kafkajs';
import type { SASLOptions } from 'kafkajs';
import { KAFKA_ENV } from '../naming';
import { registerZstdCodec, unreadCodecOf } from './kafkajs-codecs';
import { KrtError } from '../runtime/krt-error';
import type { ErrorContext } from '../runtime/krt-error';

/** Settings in the environment that cannot work: exit 2, with the variable to set. */
export class ConnectionSettingsError extends KrtError {
  constructor(message: string) {
    super(message, { exit: 'usage' });
  }

  override describe(context: ErrorContext): string {
    return connectionSettingsMessage(this, principalOfCommand(context.command));
  }
}

/** The user or password is not set: whose they should be depends on the command, which says so (connectionSettingsMessage). */
export class MissingCredentialsError extends ConnectionSettingsError {
  constructor() {
    super(missingCredentials('the principal the command runs as'));
  }
}

function missingCredentials(principal: string): string {
  return `set ${KAFKA_ENV.saslUsername} and ${KAFKA_ENV.saslPassword} to the credentials of ${principal}`;
}

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

/** `scram-sha256` (the Terraform provider's spelling) means `scram-sha-256` (kafkajs's). */
function saslMechanism(value: string): (typeof SASL_MECHANISMS)[number] | undefined {
  const mechanism = value.toLowerCase().replace(/^scram-sha(\d)/, 'scram-sha-$1');
  return SASL_MECHANISMS.find((m) => m === mechanism);
}

/** KAFKA_SSL as a choice: TLS unless it says otherwise (unset or empty); undefined for a value that says neither. */
function sslSetting(env: NodeJS.ProcessEnv): boolean | undefined {
  const value = (env[KAFKA_ENV.ssl] ?? '').trim().toLowerCase();
  if (value === '' || ['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  return undefined;
}
const sslEnabled = (env: NodeJS.ProcessEnv) => sslSetting(env) !== false;

/** Where and as whom a command connects, from the environment the runbooks tell people to set. */
export interface ConnectionSettings {
  readonly brokers: string[];
  readonly ssl: boolean;
  readonly sasl: { readonly mechanism: (typeof SASL_MECHANISMS)[number]; readonly username: string; readonly password: string };
}

/** The connection settings of the environment, or a ConnectionSettingsError naming the variable to set. */
export function connectionFromEnv(env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  // A trailing or doubled comma (a templated list) names no broker: kafkajs would try '' as one.
  const brokers = (env[KAFKA_ENV.bootstrapServers] ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '');
  if (brokers.length === 0) throw new ConnectionSettingsError(`set ${KAFKA_ENV.bootstrapServers} to the brokers, e.g. 'kafka-1:9093,kafka-2:9093'`);
  const username = env[KAFKA_ENV.saslUsername];
  const password = env[KAFKA_ENV.saslPassword];
  if (!username || !password) throw new MissingCredentialsError();
  const given = env[KAFKA_ENV.saslMechanism] ?? 'plain';
  // A value taken for TLS by default would have a plaintext listener time out with advice to set what was set.
  if (sslSetting(env) === undefined) throw new ConnectionSettingsError(`${KAFKA_ENV.ssl} must be true or false (or 1/0, yes/no, on/off), not '${env[KAFKA_ENV.ssl]}'`);
  const mechanism = saslMechanism(given);
  if (!mechanism) {
    throw new ConnectionSettingsError(`${KAFKA_ENV.saslMechanism} must be plain, scram-sha-256 or scram-sha-512 (or scram-sha256, scram-sha512), not '${given}'`);
  }
  return { brokers, ssl: sslEnabled(env), sasl: { mechanism, username, password } };
}

/** A kafkajs client from the environment the runbooks tell people to set. */
export function kafkaFromEnv(env: NodeJS.ProcessEnv = process.env, clientId = 'krt'): Kafka {
  const { brokers, ssl, sasl } = connectionFromEnv(env);
  // A DLQ the broker compresses with zstd (its or the topic's compression.type) is read too.
  registerZstdCodec();
  return new Kafka({
    clientId,
    brokers,
    ssl,
    sasl: { ...sasl } as SASLOptions,
    logLevel: logLevel.NOTHING,
    retry: { retries: 5 },
  });
}

/** Who a command runs as: named in the advice when the broker refuses it. */
export interface CommandPrincipal {
  readonly command: string;
  readonly principal: string;
}

export const REPLAY_PRINCIPAL: CommandPrincipal = { command: 'krt dlq', principal: "the consumer's replay principal" };

/** The principal each command that talks to the broker runs as (see docs/acls.md). */
export function principalOfCommand(command: string | undefined): CommandPrincipal {
  if (command === 'monitor' || command === 'lag') return { command: `krt ${command}`, principal: "the topology's monitor principal" };
  if (command === 'plan') return { command: 'krt plan --live', principal: "the topology's drift principal (User:<topology>-drift)" };
  return REPLAY_PRINCIPAL;
}

/** A settings error as the command that met it says it: missing credentials name the command's principal. */
export function connectionSettingsMessage(error: ConnectionSettingsError, who: CommandPrincipal = REPLAY_PRINCIPAL): string {
  return error instanceof MissingCredentialsError ? missingCredentials(who.principal) : error.message;
}

/**
 * A kafkajs error as one sentence that names the likely cause and the fix. kafkajs
 * reports some causes under other names: a principal without the group's ACLs gets
 * "Failed to find group coordinator", and TLS against a plaintext listener a dropped
 * connection.
 */
export function explainKafkaError(error: Error, env: NodeJS.ProcessEnv = process.env, who: CommandPrincipal = REPLAY_PRINCIPAL): string {
  const user = env[KAFKA_ENV.saslUsername] ?? '(unset)';
  const fixPrincipal = `run ${who.command} as ${who.principal}, whose ACLs the generated Terraform grants (see docs/acls.md), and check that they are applied`;
  if (error.name === 'KafkaJSGroupCoordinatorNotFound') {
    return `${error.message}: the broker names no coordinator for a group the principal may not use, so ${KAFKA_ENV.saslUsername}=${user} most likely lacks the group's ACLs; ${fixPrincipal}`;
  }
  if ((error as { type?: string }).type === 'GROUP_AUTHORIZATION_FAILED') {
    return `${error.message}: ${KAFKA_ENV.saslUsername}=${user} may not use a group it needs; ${fixPrincipal}`;
  }
  if ((error as { type?: string }).type === 'TOPIC_AUTHORIZATION_FAILED') {
    return `${error.message}: ${KAFKA_ENV.saslUsername}=${user} may not read a topic it needs; ${fixPrincipal}`;
  }
  const codec = unreadCodecOf(error);
  if (codec !== undefined) {
    const zstd = codec === 'zstd' ? ` (krt reads zstd on Node 22.15 or newer; this is Node ${process.versions.node})` : '';
    return `${error.message}: a topic krt reads holds ${codec}-compressed records (a producer's compression, or the broker's or topic's compression.type), and krt reads gzip and zstd only${zstd}; see "Compressed topics" in docs/dlq-tools.md`;
  }
  if (error.name === 'KafkaJSSASLAuthenticationError') {
    return `${error.message}: check ${KAFKA_ENV.saslUsername}, ${KAFKA_ENV.saslPassword} and ${KAFKA_ENV.saslMechanism} (now '${env[KAFKA_ENV.saslMechanism] ?? 'plain'}')`;
  }
  if (sslEnabled(env) && /TLS|SSL|EPROTO/i.test(error.message)) {
    return `${error.message}: krt spoke TLS (the default) and the broker did not answer it; if the listener is plaintext (SASL_PLAINTEXT), set ${KAFKA_ENV.ssl}=false`;
  }
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|Connection timeout/i.test(error.message)) {
    return `${error.message}: no broker answered at ${env[KAFKA_ENV.bootstrapServers]}; check ${KAFKA_ENV.bootstrapServers} and that this machine can reach it`;
  }
  if ((error as { type?: string }).type === 'UNKNOWN_TOPIC_OR_PARTITION') {
    return `${error.message}: a topic krt reads does not exist on this cluster (${env[KAFKA_ENV.bootstrapServers]}); apply the generated Terraform there (docs/deploying.md) and run again`;
  }
  return error.message;
}
