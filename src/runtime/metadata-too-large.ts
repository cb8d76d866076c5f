import { someCause } from './error-causes';

/** Kafka's error code for commit metadata past `offset.metadata.max.bytes`. */
const OFFSET_METADATA_TOO_LARGE = 12;

/**
 * Whether a commit was refused because its metadata is larger than the broker keeps:
 * kafkajs names the protocol error (`type`), the Confluent client gives its code, either
 * on the error or on a partition's error it carries.
 */
export function refusedAsTooLarge(error: unknown): boolean {
  return someCause(error, (e) => {
    const { type, code } = e as { type?: unknown; code?: unknown };
    return type === 'OFFSET_METADATA_TOO_LARGE' || code === OFFSET_METADATA_TOO_LARGE || code === 'OFFSET_METADATA_TOO_LARGE';
  });
}

/**
 * Whether a refusal as too large is only a guess: the Confluent client never hears the
 * broker's refusal, so a commit not shown twice with more metadata than the one stored is
 * taken for one (confirmed-commit.ts), and an outage can look the same.
 */
export function tooLargeOnlyGuessed(error: unknown): boolean {
  return refusedAsTooLarge(error) && (error as { guessed?: unknown }).guessed === true;
}
