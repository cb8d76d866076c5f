import { PERMANENT_KINDS } from './classify';
import type { ErrorKind } from './classify';
import type { ConsumerDescriptor, TierDescriptor } from './descriptor';

/**
 * Where a failed record goes next. Spring's vocabulary: a destination resolver,
 * pure, `(consumer, where it was read, attempt, error, now) -> destination`.
 */
export type Destination =
  | { readonly kind: 'in-place'; readonly retry: number }
  | { readonly kind: 'tier'; readonly tier: TierDescriptor; readonly attempt: number; readonly dueAt: number }
  | { readonly kind: 'dlq'; readonly attempt: number; readonly reason: DlqReason };

/** `too-large`: the record's tier copy was refused as larger than the tier keeps, even without the failure's text. */
export type DlqReason = 'permanent' | 'ambiguous-exhausted' | 'retries-exhausted' | 'too-large';

export interface Failure {
  /** The topic the failing record was read from: the main topic or one of the tiers. */
  readonly topic: string;
  readonly kind: ErrorKind;
  /** The record's `x-attempt`, when it has a usable one; only a draining tier's records need it. */
  readonly recordedAttempt?: number;
  /** Tries already made in the handler for this record, counting the first. */
  readonly triesInPlace: number;
  readonly now: number;
}

/**
 * The attempt a record is on, from where it was read: a record read from tier k is on
 * attempt k + 1 whatever its `x-attempt` says, so a garbage header can neither crash the
 * consumer nor keep a record looping (R8). A draining tier held attempts of a ladder that
 * no longer exists, so there one rule holds: the record is on the attempt its `x-attempt`
 * says, else the one its tier's place gives (index + 1), at least 2 (it failed on the
 * main topic) and at most one past every tier the consumer knows, live or draining. The
 * attempt is what the record went through; the live ladder only decides where it goes
 * next (a draining tier is never a destination, so its records always move on).
 */
export function attemptOf(consumer: ConsumerDescriptor, topic: string, recordedAttempt?: number): number {
  const tier = consumer.tiers.find((t) => t.topic === topic);
  if (!tier) return 1;
  if (!tier.draining) return tier.index + 1;
  return Math.min(Math.max(recordedAttempt ?? tier.index + 1, 2), consumer.tiers.length + 1);
}

function liveTiers(consumer: ConsumerDescriptor): readonly TierDescriptor[] {
  return consumer.tiers.filter((t) => !t.draining);
}

export function resolveDestination(consumer: ConsumerDescriptor, failure: Failure): Destination {
  const attempt = attemptOf(consumer, failure.topic, failure.recordedAttempt);
  const { kind } = failure;
  const permanent = PERMANENT_KINDS.has(kind);
  const inPlaceAllowed = consumer.ordering === 'in-place-only' ? !permanent : kind === 'transient-short';
  if (inPlaceAllowed && failure.triesInPlace < consumer.inPlace.attempts) return { kind: 'in-place', retry: failure.triesInPlace };
  if (permanent) return { kind: 'dlq', attempt, reason: 'permanent' };
  const next = consumer.ordering === 'in-place-only' ? undefined : liveTiers(consumer)[attempt - 1];
  if (kind === 'ambiguous' && attempt > consumer.errorPolicy.ambiguousTiers) return { kind: 'dlq', attempt, reason: 'ambiguous-exhausted' };
  if (!next) return { kind: 'dlq', attempt, reason: 'retries-exhausted' };
  return { kind: 'tier', tier: next, attempt: attempt + 1, dueAt: failure.now + next.delayMs };
}
