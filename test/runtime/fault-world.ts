import { HEADERS } from '../../src/naming/headers';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { decodeParkState, keyHash } from '../../src/runtime/park-state';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { FaultyPort } from '../../src/simulate/faulty-port';
import type { Fault, StepEvent } from '../../src/simulate/faulty-port';
import type { RetryEventListener } from '../../src/runtime/events';
import { MemoryBroker, MetadataTooLargeError } from '../../src/simulate/memory-broker';
import type { ThrowReaction } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { brokerReport, brokerSignature, drive, stallWatch, watchedRun } from './fault-budget';
import type { StallBudget } from './fault-budget';
import { httpError } from './harness';
import type { Clock } from '../../src/runtime/clock';

export const T0 = 1_000_000;

/** A record to produce: its key, its main partition, and how many hops (main, then tiers) fail before one succeeds. */
export interface PlannedRecord {
  readonly key: string;
  readonly partition: number;
  /** 0: succeeds on the main topic; 1: fails there, succeeds in the first tier; past the last tier: the DLQ. */
  readonly failures: number;
}

export interface FaultWorldOptions {
  readonly ordering: 'unordered' | 'park-by-key';
  readonly reaction: Exclude<ThrowReaction, 'fail'>;
  readonly partitions: number;
  readonly records: readonly PlannedRecord[];
  readonly faults?: readonly Fault[];
  readonly events?: readonly StepEvent[];
  readonly parkingBudgetBytes?: number;
  /**
   * Records `krt dlq replay` wrote into the first tier before the run, due at once (`failures`:
   * how many tiers fail them, from the first: 0 succeeds there). A replay's key may be busy:
   * park-by-key then has it wait its turn. They have no order to keep against main records.
   */
  readonly replays?: readonly PlannedRecord[];
  /**
   * The broker's `offset.metadata.max.bytes` from a metadata-limit-lowered step on (none: unlimited
   * throughout); a list: the limit each such step sets in turn (the last for any step after), so a
   * run can lower it twice, or lower it and raise it again.
   */
  readonly loweredMetadataLimitBytes?: number | readonly number[];
  /** Sees the runtime's events (to debug a case). */
  readonly onEvent?: RetryEventListener;
  /** When replays come due, in ms after T0 (default 0: before the main records are read). */
  readonly replayDueAfterMs?: number;
  /**
   * The main record a replay names as its original (attack 13): 'past-log' (the default) an
   * offset past every log; 'other-key' a record of another key of its partition, 'own-key' one
   * of its own key, 'any' either (each record named once, then past the log).
   */
  readonly replayNames?: 'past-log' | 'other-key' | 'any' | 'own-key';
  /** When a run counts as stalled (DEFAULT_STALL_BUDGET unless given). */
  readonly stallBudget?: StallBudget;
  /** eachMessage on several partitions at once, as the real clients run it (MemoryBroker.messagesSideBySide). */
  readonly sideBySide?: boolean;
}

/**
 * Steps without progress: a passing case of the properties has a few dozen in a
 * row (records read again after a restart, skipped or parked); a stall never ends.
 * Simulated time: past a park-by-key hold's expiry (every tier's delay plus 7 days), the
 * longest wait that still ends in progress.
 */
export const DEFAULT_STALL_BUDGET: StallBudget = { steps: 2_000, ms: 8 * 24 * 3_600_000 };

/** The commit window of the harness: at most this many records done and not committed per partition. */
export const COMMIT_MAX_RECORDS = 4;
/** At most this many unacknowledged publishes per partition hold its commit back. */
export const PUBLISHES_IN_FLIGHT = 4;

/** One call of the handler: which record, from which topic, when, and whether it succeeded. */
export interface Attempt {
  readonly id: number;
  readonly key: string;
  readonly hop: number;
  readonly at: number;
  readonly ok: boolean;
  readonly seq: number;
  /** Handled in a tier before the tier's delay passed since the record failed on the hop before. */
  readonly early: boolean;
  /** Which record was run (topic, partition, offset): a copy, or the same record delivered again. */
  readonly copy?: string;
}

export function descriptorFor(ordering: FaultWorldOptions['ordering']): ConsumerDescriptor {
  const base = billingDescriptor({ tiers: billingDescriptor().tiers.slice(0, 2), ordering });
  return ordering === 'park-by-key' ? { ...base, groups: { ...base.groups, retry: base.groups.main } } : base;
}

/**
 * A retrying consumer on the in-memory broker behind a faulty port: records fail as
 * planned, the port fails and the process crashes as the faults say, and a crashed process
 * is followed by a new one from the committed state. `run()` goes on until nothing is left
 * to do, then reports what a user would see.
 */
export function faultWorld(options: FaultWorldOptions) {
  const consumer = descriptorFor(options.ordering);
  const clock = new VirtualClock(T0);
  const broker = new MemoryBroker(clock);
  broker.throwReaction = options.reaction;
  // kafkajs commits the earliest offset's sentinel when a fetch falls out of range (retention).
  broker.outOfRangeCommitsEarliest = options.reaction === 'kafkajs';
  // kafkajs keeps pauses across a rebalance: the runtime must derive them again itself.
  broker.pausesSurviveRebalance = options.reaction === 'kafkajs';
  broker.messagesSideBySide = options.sideBySide === true;
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, options.partitions);
  const groups = [...new Set([consumer.groups.main, consumer.groups.retry])];
  /** Keys whose park-by-key state was lost (held, parked or with a record in the tiers then), and records a loss may run again. */
  const lostKeys = new Set<string>();
  let lossReruns = 0;
  /**
   * The group's commits of the main topic keep their offsets and lose their state, as an
   * offset reset or a client without metadata leaves them (every other loss reads trailing
   * bytes, as the NUL bug did); the group then rebalances, so the partitions are read anew.
   */
  function loseState(): void {
    for (let p = 0; p < options.partitions; p++) {
      const offset = broker.committedOffset(consumer.groups.main, consumer.mainTopic, p);
      if (offset === undefined) continue;
      const metadata = broker.committedMetadata(consumer.groups.main, consumer.mainTopic, p);
      countWhatALossMayCost(p, offset, metadata);
      const lost = faulty.statesLost % 2 === 1 ? {} : { metadata: `${(metadata ?? '').replace(/\0$/, '')}0` };
      try {
        broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: p, offset: String(offset), ...lost }]);
      } catch (error) {
        // Under a lowered metadata limit the damaged state may not fit: it is lost as a reset loses it.
        if (!(error instanceof MetadataTooLargeError)) throw error;
        broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: p, offset: String(offset) }]);
      }
    }
    groups.forEach((g) => broker.rebalance(g));
  }
  /** Keys the state stored for p (at `offset`) held, parked or had in the tiers may run out of order, and what may run again. */
  function countWhatALossMayCost(p: number, offset: number, metadata: string | null | undefined): void {
    const byHash = new Map(options.records.map((r) => [keyHash(Buffer.from(r.key)), r.key]));
    const state = decodeParkState(BigInt(offset), metadata);
    for (const hash of [...state.held.keys(), ...state.parked.values()]) lostKeys.add(byHash.get(hash)!);
    // Main records from the committed offset on run again (an older update of their keys may then
    // land over a newer one: attack 20's helper saw it at seed 7), and tier records not yet committed may run again.
    lossReruns += Number(state.position) - offset;
    for (const r of broker.records(consumer.mainTopic, p).slice(offset, Number(state.position))) lostKeys.add(r.key!.toString());
    for (const tier of consumer.tiers) {
      const pending = broker.records(tier.topic, p).slice(broker.committedOffset(consumer.groups.main, tier.topic, p) ?? 0);
      for (const r of pending) lostKeys.add(r.key!.toString());
      lossReruns += pending.length;
    }
  }
  /**
   * The broker's metadata limit comes down: a state stored over it is shed when next loaded,
   * which may cost what a lost state may (states stored after this fit the limit: the broker
   * refuses the others).
   */
  function lowerMetadataLimit(): void {
    const limits = options.loweredMetadataLimitBytes;
    const limit = typeof limits === 'number' || limits === undefined ? limits : limits[Math.min(faulty.metadataLimitsLowered - 1, limits.length - 1)];
    if (limit === undefined) return;
    for (let p = 0; p < options.partitions; p++) {
      const offset = broker.committedOffset(consumer.groups.main, consumer.mainTopic, p);
      const metadata = broker.committedMetadata(consumer.groups.main, consumer.mainTopic, p);
      if (offset !== undefined && Buffer.byteLength(metadata ?? '') > limit) countWhatALossMayCost(p, offset, metadata);
    }
    broker.metadataMaxBytes = limit;
  }
  const faulty: FaultyPort = new FaultyPort(broker.port(), {
    faults: options.faults ?? [],
    events: options.events,
    onRebalance: () => groups.forEach((g) => broker.rebalance(g)),
    onStateLost: loseState,
    onMetadataLimitLowered: lowerMetadataLimit,
    onRetention: deleteReadRecords,
  });
  const hopOf = (topic: string) => (topic === consumer.mainTopic ? 0 : consumer.tiers.findIndex((t) => t.topic === topic) + 1);
  const attempts: Attempt[] = [];
  let seq = 0;
  /** Main partition -> the id of the record at each offset. */
  const idsAt = Array.from({ length: options.partitions }, () => [] as number[]);
  options.records.forEach((r, id) => {
    broker.append(consumer.mainTopic, { key: Buffer.from(r.key), value: Buffer.from(String(id)), partition: r.partition });
    idsAt[r.partition]!.push(id);
  });
  /** Whether a record succeeded, or a copy of it is in a tier or the DLQ: it no longer needs its main record. */
  const reachedATopicBeyondMain = (id: number) =>
    attempts.some((a) => a.id === id && a.ok) ||
    [...consumer.tiers.map((t) => t.topic), consumer.dlqTopic].some((topic) => Array.from({ length: options.partitions }, (_, p) => broker.records(topic, p)).flat().some((r) => r.value?.toString() === String(id)));
  /**
   * Records retention deleted from the main topic before they succeeded or had a copy written:
   * Kafka lost them (a run that failed and crashed before its copy was written runs again only
   * from the main record), so may the consumer.
   */
  const expired = new Set<number>();
  /**
   * Records retention deleted while the committed state still had them parked: one that ran
   * before a crash undid its state cannot run again after its key's older record runs again,
   * so that older update may land last (as a lost state may cost).
   */
  const deletedWhileParked = new Set<number>();
  /**
   * Retention deletes every main record the consumer has read (below the park-by-key state's
   * position, or the group's commit): handled ones, and parked ones not yet run, which a
   * consumer lagging near the topic's retention has.
   */
  function deleteReadRecords(): void {
    for (let p = 0; p < options.partitions; p++) {
      const offset = broker.committedOffset(consumer.groups.main, consumer.mainTopic, p);
      if (offset === undefined) continue;
      const metadata = broker.committedMetadata(consumer.groups.main, consumer.mainTopic, p);
      const state = decodeParkState(BigInt(offset), metadata);
      const upTo = options.ordering === 'park-by-key' ? Number(state.position) : offset;
      // kafkajs answers the fetch below the log start that follows (a restart, a seek to a parked
      // record) by committing the earliest offset without metadata: the state is lost.
      if (options.reaction === 'kafkajs' && offset < upTo) countWhatALossMayCost(p, offset, metadata);
      const parkedDeleted = [...state.parked.keys()].filter((parked) => parked < BigInt(upTo));
      for (const parked of parkedDeleted) deletedWhileParked.add(idsAt[p]![Number(parked)]!);
      // Given up, they leave their partition's copies below them unjudged, as a shed does: a
      // stale copy of any key there may run once more after its key's newer records.
      if (parkedDeleted.length > 0) for (const id of idsAt[p]!.slice(0, upTo)) lostKeys.add(options.records[id]!.key);
      for (const id of idsAt[p]!.slice(broker.logStartOf(consumer.mainTopic, p), upTo)) if (!reachedATopicBeyondMain(id)) expired.add(id);
      broker.deleteRecordsBefore(consumer.mainTopic, p, upTo);
    }
  }
  /** Every record whose fate counts: the main topic's, then the replays (ids after them; `failures` as hops, from the main topic). */
  const planned: PlannedRecord[] = [...options.records, ...(options.replays ?? []).map((r) => ({ ...r, failures: r.failures + 1 }))];
  const isReplay = (id: number) => id >= options.records.length;
  /**
   * The original a replay names (`replayNames`). Naming a main record of its partition (as
   * `krt dlq replay` writes one) below the state's position lets it hold its key (attack 13);
   * by default none is shared (a replay naming its own key's record in retry releases that
   * record's hold, attack13-replay-releases-anothers-hold.test.ts).
   */
  const named = new Set<number>();
  const replayOriginal = (r: PlannedRecord, id: number) => {
    if ((options.replayNames ?? 'past-log') === 'past-log') return 100_000 + id;
    let offset = 0;
    for (const m of options.records) {
      if (m.partition !== r.partition) continue;
      const names = options.replayNames === 'any' ? true : options.replayNames === 'own-key' ? m.key === r.key : m.key !== r.key;
      if (names && !named.has(offset) && named.add(offset)) return offset;
      offset++;
    }
    return 100_000 + named.size + 1_000 * r.partition;
  };
  planned.forEach((r, id) => {
    if (!isReplay(id)) return;
    const headers = { [HEADERS.replayedFromDlq]: `${consumer.dlqTopic}/${r.partition}-${id}`, [HEADERS.attempt]: '2', [HEADERS.originalTopic]: consumer.mainTopic, [HEADERS.originalPartition]: String(r.partition), [HEADERS.originalOffset]: String(replayOriginal(r, id)), [HEADERS.dueAt]: String(T0 + (options.replayDueAfterMs ?? 0)) };
    broker.append(consumer.tiers[0]!.topic, { key: Buffer.from(r.key), value: Buffer.from(String(id)), partition: r.partition, headers });
  });

  /**
   * The clock as a process sees it: once the process crashed, its timers and sleeps do nothing
   * (a dead process runs no more code), though they still come due on the shared clock.
   */
  function clockOf(process: number): Clock {
    return {
      now: () => clock.now(),
      setTimer: (ms, fn) => clock.setTimer(ms, () => void (faulty.alive(process) && fn())),
      sleep: (ms) => clock.sleep(ms).then(() => (faulty.alive(process) ? undefined : new Promise<void>(() => {}))),
    };
  }

  function startProcess(): Promise<RetryingConsumer> {
    const process = faulty.current;
    const retrying = createRetryingConsumer(consumer, {
      kafka: faulty.port(),
      clock: clockOf(process),
      random: () => 0.5,
      commit: { intervalMs: 100, maxRecords: COMMIT_MAX_RECORDS },
      maxPublishesInFlight: PUBLISHES_IN_FLIGHT,
      publishBackoff: { initialMs: 100, maxMs: 1_000 },
      ...(options.parkingBudgetBytes === undefined ? {} : { parkingBudgetBytes: options.parkingBudgetBytes }),
      onEvent: (event) => {
        // Under a broker that cannot keep one hold the runtime gives up the key's order, and says so.
        if (event.type === 'parking-hold-skipped') lostKeys.add(event.key);
        options.onEvent?.(event);
      },
      handler: async (record) => {
        // A dead process does nothing more.
        if (!faulty.alive(process)) return new Promise<void>(() => {});
        const id = Number(record.message.value!.toString());
        const hop = hopOf(record.topic);
        const tier = consumer.tiers[hop - 1];
        // Due: the tier's delay after the record first failed on the hop before (R13; x-due-at says the same).
        const failedBefore = attempts.find((a) => a.id === id && a.hop === hop - 1 && !a.ok);
        // A replay is due in the first tier as it was written.
        const replayed = isReplay(id) && hop === 1;
        const early = tier !== undefined && !replayed && (failedBefore === undefined || clock.now() < failedBefore.at + tier.delayMs);
        const ok = hop >= planned[id]!.failures;
        attempts.push({ id, key: planned[id]!.key, hop, at: clock.now(), ok, seq: seq++, early, copy: `${record.topic}/${record.partition}@${record.message.offset}` });
        if (!ok) throw httpError(503);
      },
    });
    return retrying.start().then(() => retrying);
  }

  const topics = [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic];
  const watched = { broker, groups, topics, partitions: options.partitions };
  /** Everything a user could see change: handler calls, records written, commits. */
  const signature = () => `${attempts.length}|${brokerSignature(watched)}`;
  const watch = stallWatch(options.stallBudget ?? DEFAULT_STALL_BUDGET, () => clock.now(), signature, (why) => stalled(why));
  /** Runs the simulation until `stopWhen`, or until nothing is left to do; a stall throws. */
  const simulate = (phase: string, stopWhen?: () => boolean) => watchedRun(broker, watch, phase, stopWhen ? { stopWhen } : {});

  async function run() {
    let retrying = await drive(watch, clock, 'start', startProcess());
    for (let round = 0; ; round++) {
      if (round > 100) throw new Error('more than 100 crashes in one run');
      await simulate('faults on', () => faulty.crashed);
      if (!faulty.crashed) break;
      retrying = await drive(watch, clock, 'restart after a crash', startProcess());
    }
    faulty.stopFaults();
    await simulate('faults stopped');
    const paused = groups.flatMap((g) => broker.pausedPartitions(g));
    await drive(watch, clock, 'stop()', retrying.stop());
    return report(paused);
  }

  /** What a stalled run leaves undone: the records without a fate, where their copies are, what is paused and committed. */
  function stalled(why: string): string {
    const dlq = new Set(Array.from({ length: options.partitions }, (_, p) => broker.records(consumer.dlqTopic, p)).flat().map((r) => Number(r.value!.toString())));
    const succeeded = new Set(attempts.filter((a) => a.ok).map((a) => a.id));
    const copies = (id: number) =>
      consumer.tiers.flatMap((t) => Array.from({ length: options.partitions }, (_, p) => broker.records(t.topic, p).flatMap((r, offset) => (Number(r.value!.toString()) === id ? [`${t.topic}-${p}@${offset}`] : [])))).flat();
    const unfinished = planned.flatMap((r, id) =>
      succeeded.has(id) || dlq.has(id) ? [] : [`  record ${id} (key ${r.key}, partition ${r.partition}, fails ${r.failures}): tried at hops [${attempts.filter((a) => a.id === id).map((a) => a.hop).join(', ')}], tier copies [${copies(id).join(', ')}]`],
    );
    const { faults, ...rest } = options;
    return [
      `the run stalled (${why}) at simulated ${clock.now() - T0} ms, process ${faulty.current}, ${faulty.crashes} crashes, ${faulty.rebalances} rebalances, ${faulty.injected} faults injected, ${broker.restarts} restarts, ${broker.stoppedForGood} consumers stopped for good`,
      `records that never reached their fate (${unfinished.length} of ${planned.length}):`,
      ...unfinished,
      ...brokerReport(watched),
      `replay: faultWorld(${JSON.stringify({ ...rest, faults: (faults ?? []).map(({ when, ...f }) => (when ? { ...f, when: 'a filter' } : f)) })})`,
    ].join('\n');
  }

  function report(paused: string[]) {
    const dlq = Array.from({ length: options.partitions }, (_, p) => broker.records(consumer.dlqTopic, p))
      .flat()
      .map((r) => Number(r.value!.toString()));
    const succeeded = new Set(attempts.filter((a) => a.ok).map((a) => a.id));
    const lost = planned.map((_, id) => id).filter((id) => !succeeded.has(id) && !dlq.includes(id) && !expired.has(id));
    const handledTwice = (id: number) => attempts.filter((a) => a.id === id && a.ok).length + dlq.filter((d) => d === id).length - 1;
    const duplicates = planned.reduce((sum, _, id) => sum + Math.max(0, handledTwice(id)), 0);
    return {
      lost,
      paused,
      duplicates,
      early: attempts.filter((a) => a.early),
      outOfOrder: outOfOrder(),
      handled: succeeded.size,
      crashes: faulty.crashes,
      injected: faulty.injected,
      rebalances: faulty.rebalances,
      steps: faulty.steps,
      calls: new Map(faulty.calls),
      restarts: broker.restarts,
      stoppedForGood: broker.stoppedForGood,
      statesLost: faulty.statesLost,
      metadataLimitsLowered: faulty.metadataLimitsLowered,
      retentions: faulty.retentions,
      expired: expired.size,
      deletedWhileParked: deletedWhileParked.size,
      lostKeys,
      lossReruns,
      longestIdle: watch.longestIdle,
    };
  }

  /**
   * Park-by-key: a record of a key is not tried before the key's earlier records are done
   * (succeeded or in the DLQ), and every run counts: the last success of each record of a
   * key follows the last success of its earlier records (a window of records run again in
   * order after a crash is fine; a lone stale run of an older record after a newer one,
   * an older update landing on a newer one, is not).
   */
  function outOfOrder(): string[] {
    const doneAt = new Map<number, number>();
    for (const a of attempts) if (a.ok && !doneAt.has(a.id)) doneAt.set(a.id, a.seq);
    const firstTry = new Map<number, number>();
    for (const a of attempts) if (!firstTry.has(a.id)) firstTry.set(a.id, a.seq);
    const lastSuccess = new Map<number, number>();
    for (const a of attempts) if (a.ok) lastSuccess.set(a.id, a.seq);
    const violations: string[] = [];
    options.records.forEach((r, later) => {
      options.records.forEach((s, earlier) => {
        if (earlier >= later || s.key !== r.key || s.partition !== r.partition || s.failures > consumer.tiers.length || expired.has(earlier)) return;
        const done = doneAt.get(earlier);
        const tried = firstTry.get(later);
        if (tried !== undefined && (done === undefined || done > tried)) violations.push(`${r.key}: record ${later} before ${earlier}`);
        const lastEarlier = lastSuccess.get(earlier);
        const lastLater = lastSuccess.get(later);
        if (lastEarlier !== undefined && lastLater !== undefined && lastEarlier > lastLater && !deletedWhileParked.has(later)) violations.push(`${r.key}: record ${earlier} last ran after ${later}`);
      });
    });
    // A stale copy (attack 13: another tier record of a record, not the same one delivered
    // again, which any at-least-once run may repeat): a record done (its first success) must
    // not succeed again from another copy after a record of its key first tried once it was
    // done, and land over that record's last success (an older update over a newer one).
    const firstOk = new Map<number, Attempt>();
    for (const a of attempts) if (a.ok && !firstOk.has(a.id)) firstOk.set(a.id, a);
    planned.forEach((x, xi) => {
      const done = firstOk.get(xi);
      if (done === undefined) return;
      const otherCopies = attempts.filter((a) => a.id === xi && a.ok && a.seq > done.seq && a.copy !== done.copy);
      planned.forEach((y, yi) => {
        if (xi === yi || x.key !== y.key || x.partition !== y.partition || deletedWhileParked.has(yi)) return;
        const triedY = firstTry.get(yi);
        const lastY = lastSuccess.get(yi);
        if (triedY === undefined || lastY === undefined || triedY < done.seq) return;
        const over = otherCopies.find((a) => a.seq > lastY);
        if (over !== undefined) violations.push(`${x.key}: ${isReplay(xi) ? 'replay' : 'record'} ${xi}'s copy ${over.copy} ran over ${yi}`);
      });
    });
    return violations;
  }

  return { consumer, broker, clock, faulty, attempts, run, headers: HEADERS };
}
