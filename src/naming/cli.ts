/**
 * The DLQ commands of the krt CLI, as runbooks print them and the CLI defines them:
 * one source, so a runbook never names a command or flag the CLI does not have.
 */
export const DLQ_COMMAND = {
  group: 'dlq',
  inspect: 'inspect',
  replay: 'replay',
  discard: 'discard',
} as const;

export const DLQ_FLAGS = {
  json: '--json',
  ids: '--ids',
  errorClass: '--error-class',
  all: '--all',
  rate: '--rate',
  limit: '--limit',
  dryRun: '--dry-run',
  reason: '--reason',
  by: '--by',
  to: '--to',
  yes: '--yes',
} as const;

/** Records `krt dlq replay` takes at most with --error-class or --all, unless --limit says otherwise. */
export const DEFAULT_REPLAY_LIMIT = 100;

/**
 * Where `krt dlq replay` sends records: by default through the consumer's first retry
 * tier, which only its own group reads, due at once; the main topic only when asked,
 * because every group reading it processes the records again.
 */
export const REPLAY_ROUTES = {
  firstTier: 'first-tier',
  mainTopic: 'main-topic',
} as const;

export type ReplayRouteName = (typeof REPLAY_ROUTES)[keyof typeof REPLAY_ROUTES];

/** How a DLQ record is named on the command line: its DLQ partition and offset. */
export const DLQ_RECORD_ID_FORMAT = '<partition>:<offset>';

/** The environment the krt DLQ commands read their connection from. */
export const KAFKA_ENV = {
  bootstrapServers: 'KAFKA_BOOTSTRAP_SERVERS',
  saslUsername: 'KAFKA_SASL_USERNAME',
  saslPassword: 'KAFKA_SASL_PASSWORD',
  saslMechanism: 'KAFKA_SASL_MECHANISM',
  ssl: 'KAFKA_SSL',
} as const;

export function dlqCommand(subcommand: keyof Omit<typeof DLQ_COMMAND, 'group'>, consumer: string, ...flags: string[]): string {
  return ['krt', DLQ_COMMAND.group, DLQ_COMMAND[subcommand], consumer, ...flags].join(' ');
}

/** `krt lag`: tier and DLQ lag per partition, as the monitor principal. */
export const LAG_COMMAND = 'lag';

export function lagCommandLine(consumer: string): string {
  return ['krt', LAG_COMMAND, consumer].join(' ');
}
