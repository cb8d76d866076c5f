/**
 * What the runtime throws to the client when a record must be delivered again (a refused
 * commit of a key's state, a port call that failed). kafkajs redelivers, and restarts
 * the consumer after its retries, only for a retriable error: any other one (a
 * non-retriable protocol error such as GROUP_AUTHORIZATION_FAILED, or a TypeError) stops
 * the consumer for good with nothing said. So every error leaves the runtime retriable,
 * with the original kept as `reason` (not `cause`: kafkajs reads the original cause's
 * `retriable` when it decides whether to restart).
 */
export class TakeRecordAgain extends Error {
  override name = 'KafkaRetryTakeRecordAgain';
  readonly retriable = true;
  constructor(readonly reason: unknown) {
    super(`the record is taken again: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}

/** The error to throw to the client: retriable in any case. */
export function retriableForClient(error: unknown): unknown {
  const unrecoverable = error instanceof Error && ['TypeError', 'RangeError', 'SyntaxError', 'ReferenceError'].includes(error.name);
  return (error as { retriable?: unknown } | null)?.retriable === true && !unrecoverable ? error : new TakeRecordAgain(error);
}
