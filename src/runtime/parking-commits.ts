import { untilAccepted } from './commit-patience';
import type { HoldClocks } from './hold-clocks';
import { refusedAsTooLarge } from './metadata-too-large';
import { committedOffsetOf, forgetRanUnjudged, parkStateMetadata } from './park-state';
import type { ParkState } from './park-state';
import type { ParkingBudget } from './parking-budget';
import type { createParkingPatience } from './parking-patience';
import type { PartitionParking } from './partition-parking';
import type { ConsumerPort, OffsetCommit } from './port';
import { coveredBy, fitRanUnjudged, forgetCommittedPast, markRan } from './ran-unjudged';
import type { ConsumedRecord } from './router';
import { anchoredBy, withTierMetadata } from './tier-position';
import { lastPerPartition } from './tier-turns';
import type { OwedTierCommit, TierCommit } from './tier-turns';

export interface ParkingCommitsOptions {
  readonly mainTopic: string;
  readonly tierTopics: readonly string[];
  readonly consumer: () => ConsumerPort;
  readonly budget: ParkingBudget;
  readonly patience: ReturnType<typeof createParkingPatience>;
  readonly holdClocks: HoldClocks;
  /** Whether `parking` is still main partition p's loaded state (a rebalance or a failed operation drops it). */
  readonly isCurrent: (partition: number, parking: PartitionParking) => boolean;
}

/**
 * How park-by-key commits main partition p's state and its tier partitions' offsets: the state
 * first, in a request of its own, the tier offsets once it is stored; refusals owed, waited out
 * or met by a lower budget. The one writer of p's group commits (key-parking.ts decides what).
 */
export function createParkingCommits({ mainTopic, tierTopics, consumer, budget, patience, holdClocks, isCurrent }: ParkingCommitsOptions) {
  /** The runs the last accepted commits of p's tier partitions record past their offsets, for now (coveredBy). */
  const coveredNow = (parking: Pick<PartitionParking, 'lastAcceptedTierCommits'>) => coveredBy(parking.lastAcceptedTierCommits ?? new Map(), tierTopics);

  /** The commit of p's main state, fitted to the budget first (its id, its mark, the runs it names). */
  const stateCommit = (partition: number, parking: Pick<PartitionParking, 'state' | 'lastAcceptedTierCommits'>): OffsetCommit => {
    const { state } = parking;
    budget.fitId(state);
    budget.fitMark(state);
    fitRanUnjudged(state, budget.bytes, coveredNow(parking));
    return { topic: mainTopic, partition, offset: committedOffsetOf(state).toString(), metadata: parkStateMetadata(state) };
  };

  /**
   * Commits one offset per partition, the tier partitions' never past a waiting record; only
   * while `parking` is still the partition's state. A rebalance during the operation forgot
   * it (and the records waiting their turn): the partition is read again from its commit, so
   * committing now could pass a record that waited (as the broker refuses a commit from an
   * earlier generation). The main state goes first, in a request of its own, and the tier
   * offsets only once it is stored: the broker refuses per partition (a state too large for
   * `offset.metadata.max.bytes` while it stores the tier offsets beside it), so one request
   * is not atomic, and a tier record committed past without the state that covers it (its
   * hold, its key's release) would never be read again to take or release the hold.
   */
  async function commit(partition: number, parking: PartitionParking, commits: (OffsetCommit | TierCommit)[]): Promise<void> {
    if (!isCurrent(partition, parking)) return;
    const latest = lastPerPartition(commits);
    const state = latest.filter((c) => c.topic === mainTopic) as OffsetCommit[];
    const handled = latest.filter((c): c is TierCommit => c.topic !== mainTopic);
    const tiers = handled.map((c) => withTierMetadata(parking, c, budget));
    if (state.length > 0) {
      await payOwedTierCommits(partition, parking);
      if (!isCurrent(partition, parking)) return;
    }
    if (state.length > 0 && tiers.length > 0) {
      await commitState(partition, parking.state, state, parking);
      // What the tier records it ran changed (their holds, the records it ran unjudged) is stored:
      // they are done with, even if the tier commits are refused (then owed: sent before the next state).
      parking.turns.settled(partition);
      knownDoneSinceCommit(parking);
      if (!isCurrent(partition, parking)) return;
      try {
        // Waited out as the state was, or the stored state and a refused tier commit would be
        // split by the wait (attack 43: owed, the debt dropped at a rebalance, a replay ran again
        // after its key's newer one); but only over the tier commits they were sent over, as a
        // tier created again meanwhile would take the old log's offset (attack 41).
        await commitTiers(partition, parking, handled, tiers);
      } catch (error) {
        owe(partition, parking, handled, tiers);
        throw error;
      }
    } else {
      // Tier commits alone (no record of the main state changed) are not waited out: refused, the record is read again and judged again.
      await commitState(partition, parking.state, [...state, ...tiers], tiers.length === 0 ? parking : undefined);
    }
    parking.turns.settled(partition);
    if (state.length > 0) knownDoneSinceCommit(parking);
    acceptedTierCommits(parking, handled, tiers);
  }

  /**
   * Owes the tier commits refused after their state was stored, each over the group's commit of
   * its partition as this member knows it: the last it stored in this generation, else the one
   * read at the load. None known (no commit yet): nothing can tell the log it was owed on, so
   * none is owed.
   */
  function owe(partition: number, parking: PartitionParking, handled: readonly TierCommit[], sent: readonly OffsetCommit[]): void {
    const debts = handled.flatMap((commit, i) => {
      const over = parking.turns.lastAccepted(commit.topic, commit.partition) ?? parking.tierCommitted.get(commit.topic);
      return over === undefined ? [] : [{ commit, sent: sent[i]!, over }];
    });
    parking.turns.owe(partition, debts);
  }

  /** Records a record no hold judged as run: in the state (ran-unjudged.ts), and known done in this generation once that state is stored. */
  function ranUnjudged(parking: PartitionParking, record: ConsumedRecord): void {
    markRan(parking.state, record, tierTopics);
    if (record.message.key !== null) (parking.ranSinceCommit ??= []).push(record);
  }

  function knownDoneSinceCommit(parking: PartitionParking): void {
    for (const record of parking.ranSinceCommit?.splice(0) ?? []) parking.turns.knownDone(record);
  }

  function acceptedTierCommits(parking: PartitionParking, handled: readonly TierCommit[], sent: readonly OffsetCommit[]): void {
    handled.forEach((c, i) => parking.turns.accepted(c, sent[i]!.offset));
    forgetCommittedPast(parking.state, tierTopics, handled);
    for (const c of sent) (parking.lastAcceptedTierCommits ??= new Map()).set(c.topic, c);
    for (const c of sent) anchoredBy(parking.turns, c);
  }

  /**
   * The tier commits refused after their state was stored (tier-turns.ts owe), in a request of
   * their own, before a state that may hold the next record of a key they record as run: in
   * this generation, a replay's run the state could not carry (ran-unjudged.ts: a budget with no
   * room for it). Only over the group commit it was owed over (`over`: the last this member
   * stored, or read at the load): anything else there (a load's stamp on a tier created again,
   * another log's commit) is not the log the debt was owed on, and paying it would put its offset past a new log's records (found by attacks
   * 25 and 26): the debt is forgiven. Best effort: a refused payment stays owed for the next
   * state (one refused as too large goes again as its offset alone) and fails nothing, as one
   * tier partition's refusals must not stop its main partition (attack 25).
   */
  async function payOwedTierCommits(partition: number, parking: PartitionParking): Promise<void> {
    const owed = parking.turns.owed(partition);
    if (owed.length === 0) return;
    const due: OwedTierCommit[] = [];
    try {
      for (const debt of owed) {
        const { topic, partition: tierPartition } = debt.sent;
        const [group] = await consumer().committed(topic, [tierPartition]);
        if (group !== undefined && /^\d+$/.test(group.offset) && BigInt(group.offset) === debt.over) due.push(debt);
        else parking.turns.forgive(partition, debt);
      }
      if (due.length === 0 || !isCurrent(partition, parking)) return;
      await commitState(partition, parking.state, due.map((o) => o.sent));
      acceptedTierCommits(parking, due.map((o) => o.commit), due.map((o) => o.sent));
    } catch (error) {
      // Too large (the broker's, or a guess the Confluent client makes): the offset is what records the run.
      if (refusedAsTooLarge(error)) parking.turns.owe(partition, due.map((o) => ({ ...o, sent: { topic: o.commit.topic, partition: o.commit.partition, offset: o.commit.offset } })));
    }
  }

  /**
   * One request; a refusal as too large lowers the budget under what it carried. `state`: the
   * state the commits are of (passed: load() commits one not yet in `partitions`). With `owner`,
   * the partition's loaded state whose operation ran, a refusal worth it is waited out while
   * `owner` is still the partition's (commit-patience.ts): its records ran, and failing the
   * operation would run them again. Only for commits of the main topic's state: what the state
   * says is read from it, while a tier's offset sent again could land on a log created since.
   */
  async function commitState(partition: number, state: ParkState, commits: OffsetCommit[], owner?: PartitionParking): Promise<void> {
    const patient = owner !== undefined && patience.mayWait(partition);
    const send = (sent: OffsetCommit[]) => (patient ? untilAccepted(() => sendCommits(partition, state, sent), patience.ofState(partition, () => isCurrent(partition, owner), sent)) : sendCommits(partition, state, sent));
    try {
      await send(commits);
    } catch (error) {
      // A state refused as too large with the runs it records goes again at once without them
      // (they cost order only): the refusal taught the budget its size with them, not whether
      // the state fits without (found by attack 19's property: read as the state's own size,
      // the budget came down under a state the broker keeps, and a shed gave up a hold).
      if (!refusedAsTooLarge(error) || state.ranUnjudged === undefined || !commits.some((c) => c.topic === mainTopic)) throw error;
      forgetRanUnjudged(state, () => true);
      await send(commits.map((c) => (c.topic === mainTopic ? { ...c, metadata: parkStateMetadata(state) } : c)));
    }
  }

  /** The tier commits sent after the state they follow: waited out as the state's, while the group's commits of their partitions are still the ones they were sent over. */
  async function commitTiers(partition: number, parking: PartitionParking, handled: readonly TierCommit[], tiers: OffsetCommit[]): Promise<void> {
    if (!patience.mayWait(partition)) return commitState(partition, parking.state, tiers);
    const sending = handled.map((c, i) => ({ topic: c.topic, partition: c.partition, offset: tiers[i]!.offset, over: parking.turns.lastAccepted(c.topic, c.partition) ?? parking.tierCommitted.get(c.topic) }));
    await untilAccepted(() => commitState(partition, parking.state, tiers), patience.ofTiers(partition, () => isCurrent(partition, parking), sending));
  }

  /** One request; a refusal as too large lowers the budget under what it carried. */
  async function sendCommits(partition: number, state: ParkState, commits: OffsetCommit[]): Promise<void> {
    const sent = Math.max(0, ...commits.map((c) => (c.metadata ? Buffer.byteLength(c.metadata) : 0)));
    try {
      await consumer().commitOffsets(commits);
    } catch (error) {
      budget.commitRefused(error, sent, state, partition);
      throw error;
    }
    budget.commitAccepted(sent);
    for (const c of commits) if (c.topic === mainTopic) patience.stored(partition, c);
    // Every stored state of p (a load's, a shed's, a release's) forgets the holds it no longer has.
    if (commits.some((c) => c.topic === mainTopic)) holdClocks.stored(partition, state);
  }
  return { coveredNow, stateCommit, commit, commitState, ranUnjudged };
}
