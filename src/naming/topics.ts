import { formatDuration } from '../duration';

/**
 * How retry and DLQ topics are named.
 * - `default`: `{base}.retry.{delay}` and `{base}.dlq` (delay as a label: `5s`, `10m`, `1h`).
 * - `spring`: `{base}-retry-{delayMs}` and `{base}-dlt`, as Spring Kafka's `@RetryableTopic`
 *   names them, for teams that share topics with JVM services.
 */
export type NamingStyle = 'default' | 'spring';
export const NAMING_STYLES = ['default', 'spring'] as const;

/** Kafka's legal topic characters. */
export const TOPIC_NAME_PATTERN = /^[a-zA-Z0-9._-]+$/;
/** Kafka rejects longer topic names. */
export const MAX_TOPIC_NAME_LENGTH = 249;

export function retryTopicName(base: string, delayMs: number, style: NamingStyle): string {
  return style === 'spring' ? `${base}-retry-${delayMs}` : `${base}.retry.${formatDuration(delayMs)}`;
}

export function dlqTopicName(base: string, style: NamingStyle): string {
  return style === 'spring' ? `${base}-dlt` : `${base}.dlq`;
}

/**
 * The DLQ's audit log: every replay and discard, with who decided and why (R17), kept
 * in Kafka so that nothing leaves the DLQ silently.
 */
export function dlqAuditTopicName(base: string, style: NamingStyle): string {
  return style === 'spring' ? `${base}-dlt-audit` : `${base}.dlq.audit`;
}

/** Why Kafka would refuse this topic name, or undefined when it is legal. */
export function topicNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'a topic name cannot be empty';
  if (name === '.' || name === '..') return `'${name}' is reserved by Kafka; choose another topic name`;
  if (name.length > MAX_TOPIC_NAME_LENGTH) {
    // Its start and its end: generated names differ in the end (`.retry.1m`, `.dlq`).
    return `'${name.slice(0, 40)}…${name.slice(-40)}' is ${name.length} characters long; Kafka allows at most ${MAX_TOPIC_NAME_LENGTH}, so shorten it`;
  }
  if (!TOPIC_NAME_PATTERN.test(name)) {
    return `'${name}' has characters Kafka does not allow in topic names; use only letters, digits, '.', '_' and '-'`;
  }
  return undefined;
}

/**
 * Kafka replaces '.' by '_' in metric names, so two topics that differ only there
 * report under one name. Topics with equal keys collide in metrics.
 */
export function metricCollisionKey(topic: string): string {
  return topic.replace(/\./g, '_');
}
