import type { PortMessage } from './port';
import type { HandleOutcome } from './record-handler';
import { isSameRecord } from './record-identity';

/** Where a main record went, when no tier copy of it is judged by the state: done, or the DLQ. */
export type EndedOutcome = Exclude<HandleOutcome, 'tier'>;

interface Remembered {
  readonly outcome: EndedOutcome;
  readonly message: PortMessage;
  /** The id of the state it ran under: a state begun from nothing since (a new log's) has another. */
  readonly stateId: string;
}

/**
 * Park-by-key's main records that ran, whose state commit was then refused past the commit
 * patience: the operation fails, the state is dropped and the client hands the record over
 * again (kafkajs, after its retries, rejoins first), while the group's commit still says it
 * has not run. Taken again under the same state (its id: a state begun from nothing, as a new
 * log's is, takes another, and one with no id is never matched; a state found lost may take its
 * id back from the tier commits, at the lost offset, where a record that ran ran all the same)
 * at an offset its position has not passed, the record ran already: its outcome stands and only
 * the commit is made again. A member that owned the partition meanwhile and ran it too could not
 * have committed that either (the position would have passed it). Before, the record ran once
 * per commit patience, or per kafkajs rejoin, for as long as the coordinator refused (attack 32).
 * Another record taken on the partition forgets it.
 *
 * Only a record that ended done or in the DLQ: a copy in a tier is judged against the state
 * the tier record's operation reads, and under the state read again (no hold for it, its record
 * not yet taken) the copy is a stale duplicate, skipped because its record runs again. Not run
 * again, such a record would have no retry left.
 */
export function createRanAwaitingCommit() {
  const ran = new Map<number, Remembered>();
  return {
    remember(partition: number, message: PortMessage, stateId: string | undefined, outcome: HandleOutcome): void {
      // Under a state with no id (a budget too small for one) nothing tells its state from another
      // begun from nothing, such as a new log's after the topic was created again (review 52).
      if (outcome === 'tier' || stateId === undefined) ran.delete(partition);
      else ran.set(partition, { outcome, message, stateId });
    },
    /** Where this very record went when it ran before under this state, if it did; forgotten either way. */
    take(partition: number, message: PortMessage, stateId: string | undefined): EndedOutcome | undefined {
      const remembered = ran.get(partition);
      ran.delete(partition);
      if (remembered === undefined || remembered.stateId !== stateId || !isSameRecord(remembered.message, message)) return undefined;
      return remembered.outcome;
    },
  };
}
