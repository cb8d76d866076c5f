import type { ErrorPolicy } from './descriptor';
import { errorNameOf, safeField } from './describe-error';

/**
 * What a failure means for routing (R7):
 * - `transient-short`: retry in place with backoff (timeouts, deadlocks);
 * - `transient-long`: the retry tiers (5xx, 429, broker connection errors);
 * - `permanent-data`: the DLQ at once (unparsable or invalid data);
 * - `permanent-code`: the DLQ at once; fix the code or config, then replay;
 * - `ambiguous`: a few tiers, then the DLQ (an entity that may not have arrived yet);
 * - `deserialization`: the DLQ at once; the consumer's value codec refused the record.
 */
export type ErrorKind = 'transient-short' | 'transient-long' | 'permanent-data' | 'permanent-code' | 'ambiguous' | 'deserialization';
export const ERROR_KINDS: readonly ErrorKind[] = ['transient-short', 'transient-long', 'permanent-data', 'permanent-code', 'ambiguous', 'deserialization'];

/** The kinds that go to the DLQ at once, never through the tiers nor retried in place. */
export const PERMANENT_KINDS: ReadonlySet<ErrorKind> = new Set(['permanent-data', 'permanent-code', 'deserialization']);

/** A classifier may decline (undefined) to leave an error to the next one. */
export type ErrorClassifier = (error: unknown) => ErrorKind | undefined;

const NETWORK_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN',
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
]);
const TIMEOUT_NAMES = new Set(['TimeoutError', 'AbortError']);
/** PostgreSQL SQLSTATEs: deadlock detected, serialization failure. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const KAFKAJS_TRANSIENT = new Set([
  'KafkaJSConnectionError', 'KafkaJSRequestTimeoutError', 'KafkaJSConnectionClosedError', 'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSBrokerNotFound', 'KafkaJSLockTimeout',
]);
/** Open circuit breakers of opossum and cockatiel. */
const OPEN_CIRCUIT = new Set(['EOPENBREAKER', 'BrokenCircuitError', 'OpenCircuitError', 'IsolatedCircuitError']);

/** A field of a thrown value; undefined when reading it throws, so no thrown value can crash the classifier. */
const field = safeField;

/** `err.name`, or the class name of an error without one. */
export const errorName = errorNameOf;

/** The codes an error carries: `code`, `errno` names, and SQLSTATE. */
function errorCodes(error: unknown): string[] {
  return ['code', 'sqlState', 'sqlstate'].map((k) => field(error, k)).filter((v): v is string | number => typeof v === 'string' || typeof v === 'number').map(String);
}

/** The HTTP status of fetch, axios, got and similar errors. */
export function httpStatus(error: unknown): number | undefined {
  const candidates = [field(error, 'status'), field(error, 'statusCode'), field(field(error, 'response'), 'status'), field(field(error, 'response'), 'statusCode')];
  return candidates.find((v): v is number => typeof v === 'number' && v >= 100 && v < 600);
}

function isZodError(error: unknown): boolean {
  return errorName(error) === 'ZodError' || (Array.isArray(field(error, 'issues')) && typeof field(error, 'message') === 'string' && field(error, 'name') === 'ZodError');
}

/** The table of R7, applied to errors from Node, KafkaJS, PostgreSQL, HTTP clients and zod. */
export const defaultClassifier: ErrorClassifier = (error) => {
  const name = errorName(error);
  const codes = errorCodes(error);
  if (codes.some((c) => RETRYABLE_SQLSTATES.has(c))) return 'transient-short';
  if (codes.some((c) => NETWORK_CODES.has(c)) || TIMEOUT_NAMES.has(name)) return 'transient-short';
  if (KAFKAJS_TRANSIENT.has(name) || OPEN_CIRCUIT.has(name) || codes.some((c) => OPEN_CIRCUIT.has(c))) return 'transient-long';
  const status = httpStatus(error);
  if (status !== undefined) {
    if (status >= 500 || status === 429 || status === 408) return 'transient-long';
    if (status === 404) return 'ambiguous';
    if (status === 401 || status === 403) return 'permanent-code';
    if (status >= 400) return 'permanent-data';
  }
  if (isZodError(error) || name === 'SyntaxError') return 'permanent-data';
  if (name === 'TypeError' || name === 'ReferenceError' || name === 'RangeError') return 'permanent-code';
  if (/not ?found/i.test(name)) return 'ambiguous';
  return undefined;
};

/** What an error nobody recognizes gets: the tiers, then the DLQ, so it is neither lost nor retried forever. */
export const UNKNOWN_ERROR_KIND: ErrorKind = 'transient-long';

/** The consumer's declared names and codes (spec `errors`), checked before anything else. */
export function policyClassifier(policy: ErrorPolicy): ErrorClassifier {
  const permanent = new Set(policy.permanent);
  const ambiguous = new Set(policy.ambiguous);
  return (error) => {
    const keys = [errorName(error), ...errorCodes(error), String(httpStatus(error) ?? '')];
    if (keys.some((k) => permanent.has(k))) return 'permanent-code';
    if (keys.some((k) => ambiguous.has(k))) return 'ambiguous';
    return undefined;
  };
}

/**
 * Classifiers asked in turn, as one that declines when all decline: the one chain every
 * composition goes through (the runtime's below, the NestJS module's). A link that throws,
 * or answers something that is not a kind, declines: a record's fate never depends on a
 * classifier's bug, wherever in the chain it sits.
 */
export function chainClassifiers(...classifiers: (ErrorClassifier | undefined)[]): ErrorClassifier {
  return (error) => {
    for (const classify of classifiers) {
      const kind = askSafely(classify, error);
      if (kind) return kind;
    }
    return undefined;
  };
}

/**
 * The classifier a consumer uses: its declared errors, then the user's own classifier
 * if any, then the default table; unknown errors go through the tiers.
 */
export function composeClassifiers(...classifiers: (ErrorClassifier | undefined)[]): (error: unknown) => ErrorKind {
  const chain = chainClassifiers(...classifiers);
  // Asked first: no classifier may send a value its codec refused through the tiers.
  return (error) => (errorName(error) === 'DeserializationError' ? 'deserialization' : (chain(error) ?? UNKNOWN_ERROR_KIND));
}

function askSafely(classify: ErrorClassifier | undefined, error: unknown): ErrorKind | undefined {
  try {
    const kind = classify?.(error);
    return kind !== undefined && ERROR_KINDS.includes(kind) ? kind : undefined;
  } catch {
    return undefined;
  }
}
