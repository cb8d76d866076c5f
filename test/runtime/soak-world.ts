import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { FaultyPort } from '../../src/simulate/faulty-port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { brokerReport, brokerSignature, drive, stallWatch, watchedRun } from './fault-budget';
import { DEFAULT_STALL_BUDGET } from './fault-world';
import { httpError } from './harness';

const T0 = 1_000_000;
export const PARTITIONS = 3;

/** How a record's handler behaves: fine, a permanent error, a transient one `n` times, or a throw of something odd. */
export type Behaviour = { kind: 'ok' } | { kind: 'poison' } | { kind: 'flaky'; times: number } | { kind: 'odd' };
/**
 * Between stretches of time: nothing, a rebalance, a clean restart (stop() then a new
 * process), or the broker refusing the next writes to every tier and the DLQ, or the
 * next commits of every group. Crashes come at any step, not between stretches.
 */
export type Action = 'run' | 'rebalance' | 'restart' | 'refuse-writes' | 'refuse-commits';
/** A record to produce: `stage` is the stretch before which it is produced (past the last: after them all). */
export interface SoakRecord {
  readonly key: string | null;
  readonly partition: number;
  readonly behaviour: Behaviour;
  readonly stage: number;
}
/** A stretch of simulated time, then an action. */
export interface Stretch {
  readonly action: Action;
  readonly advanceMs: number;
  /** Writes or commits refused by `refuse-writes` and `refuse-commits`. */
  readonly refusals: number;
}

const describeBehaviour = (b: Behaviour) => (b.kind === 'flaky' ? `flaky ${b.times}` : b.kind);

/**
 * One soak case on the in-memory broker (kafkajs's reaction to a throw): the records are
 * produced stage by stage, the stretches run with their actions, the process crashes at
 * the given port calls; then nothing may be lost, every permanent error is in the DLQ and
 * every partition is committed to its end. A stall fails within the fault harness's budget;
 * a passing case returns its longest run of steps without progress.
 */
export async function soak(d: ConsumerDescriptor, batch: readonly SoakRecord[], schedule: readonly Stretch[], crashSteps: readonly number[]) {
  const clock = new VirtualClock(T0);
  const broker = new MemoryBroker(clock);
  // A refused commit thrown out of eachMessage is delivered again, as kafkajs does.
  broker.throwReaction = 'kafkajs';
  for (const topic of [d.mainTopic, ...d.tiers.map((t) => t.topic), d.dlqTopic]) broker.createTopic(topic, PARTITIONS);
  const groups = [...new Set([d.groups.main, d.groups.retry])];
  const faulty = new FaultyPort(broker.port(), { faults: [], events: crashSteps.map((at) => ({ kind: 'crash' as const, at })) });
  const calls = new Map<string, number>();
  let handlerCalls = 0;
  const succeeded = new Set<string>();
  const behaviourOf = new Map(batch.map((r, i) => [`r${i}`, r.behaviour]));
  const topics = [d.mainTopic, ...d.tiers.map((t) => t.topic), d.dlqTopic];
  const watched = { broker, groups, topics, partitions: PARTITIONS };
  const valuesIn = (topic: string) => Array.from({ length: PARTITIONS }, (_, p) => broker.records(topic, p).map((r, offset) => ({ id: r.value!.toString(), at: `${topic}-${p}@${offset}` }))).flat();
  let phase = 'start';
  /** What a stalled case leaves undone: the records without a fate, where their copies are, what is paused and committed. */
  const stalled = (why: string) => {
    const dead = new Set(valuesIn(d.dlqTopic).map((r) => r.id));
    const copies = d.tiers.flatMap((t) => valuesIn(t.topic));
    const unfinished = batch.flatMap((r, i) => {
      const id = `r${i}`;
      if (succeeded.has(id) || dead.has(id)) return [];
      const where = copies.filter((c) => c.id === id).map((c) => c.at);
      return [`  record ${id} (key ${r.key ?? 'none'}, partition ${r.partition}, ${describeBehaviour(r.behaviour)}, stage ${r.stage}): ${calls.get(id) ?? 0} handler calls, tier copies [${where.join(', ')}]`];
    });
    return [
      `the soak stalled (${why}) at simulated ${clock.now() - T0} ms, process ${faulty.current}, ${faulty.crashes} crashes, ${broker.restarts} restarts, ${broker.stoppedForGood} consumers stopped for good`,
      `records that never reached their fate (${unfinished.length} of ${batch.length}):`,
      ...unfinished,
      ...brokerReport(watched),
      'replay: KRT_PROPERTY_SEED and KRT_PROPERTY_PATH from the failure below, or the counterexample as a test',
    ].join('\n');
  };
  /** Everything a user could see change: handler calls, records written, commits. */
  const watch = stallWatch(DEFAULT_STALL_BUDGET, () => clock.now(), () => `${handlerCalls}|${brokerSignature(watched)}`, stalled);
  const start = async (): Promise<RetryingConsumer> => {
    const process = faulty.current;
    const retrying = createRetryingConsumer(d, {
      kafka: faulty.port(),
      clock,
      random: () => 0.5,
      handler: async (record) => {
        if (!faulty.alive(process)) return new Promise<void>(() => {});
        const id = record.message.value!.toString();
        const call = (calls.get(id) ?? 0) + 1;
        calls.set(id, call);
        handlerCalls++;
        const behaviour = behaviourOf.get(id)!;
        if (behaviour.kind === 'poison') throw new SyntaxError('unreadable');
        if (behaviour.kind === 'odd') throw Object.create(null);
        if (behaviour.kind === 'flaky' && call <= behaviour.times) throw httpError(503);
        succeeded.add(id);
      },
    });
    // Abandoned when the process is killed meanwhile: runUntil() then starts the next one.
    await drive(watch, clock, `${phase}: start()`, retrying.start(), () => faulty.crashed);
    return retrying;
  };
  const produce = (stage: (s: number) => boolean) =>
    batch.forEach((r, i) => stage(r.stage) && broker.append(d.mainTopic, { key: r.key === null ? null : Buffer.from(r.key), value: Buffer.from(`r${i}`), partition: r.partition }));
  let retrying = await start();
  /** Runs until `until` (or until nothing is left); a process that crashed on the way is followed by a new one. */
  const runUntil = async (until?: number) => {
    for (;;) {
      await watchedRun(broker, watch, phase, { ...(until === undefined ? {} : { until }), stopWhen: () => faulty.crashed });
      if (!faulty.crashed) return;
      retrying = await start();
    }
  };
  for (const [stage, { action, advanceMs, refusals }] of schedule.entries()) {
    phase = `stretch ${stage} (then ${action})`;
    produce((s) => s === stage);
    await runUntil(clock.now() + advanceMs);
    if (action === 'rebalance') for (const group of groups) broker.rebalance(group);
    if (action === 'restart') {
      // Crashes come at any step, stop()'s commits included: a process killed there never
      // returns from stop() (its calls never answer), and the next one starts all the same.
      await drive(watch, clock, `${phase}: stop()`, retrying.stop(), () => faulty.crashed);
      retrying = await start();
    }
    if (action === 'refuse-writes') for (const topic of [...d.tiers.map((t) => t.topic), d.dlqTopic]) broker.refuseWrites(topic, refusals);
    if (action === 'refuse-commits') for (const group of groups) broker.refuseCommits(group, refusals);
  }
  phase = 'the last stretch';
  produce((s) => s >= schedule.length);
  await runUntil();
  faulty.stopFaults();
  await drive(watch, clock, 'the final stop()', retrying.stop());

  const dead = new Set(Array.from({ length: PARTITIONS }, (_, p) => broker.records(d.dlqTopic, p).map((r) => r.value!.toString())).flat());
  for (const [id, behaviour] of behaviourOf) {
    // Nothing lost: every record succeeded or is in the DLQ; a permanent error never succeeds.
    expect({ id, done: succeeded.has(id) || dead.has(id) }).toEqual({ id, done: true });
    if (behaviour.kind === 'poison' || behaviour.kind === 'odd') expect({ id, dead: dead.has(id) }).toEqual({ id, dead: true });
  }
  // No partition stuck: every main and tier partition is committed to its end.
  for (let p = 0; p < PARTITIONS; p++) {
    expect({ p, committed: broker.committedOffset(d.groups.main, d.mainTopic, p) ?? 0 }).toEqual({ p, committed: broker.records(d.mainTopic, p).length });
    for (const tier of d.tiers) expect({ tier: tier.topic, p, committed: broker.committedOffset(d.groups.retry, tier.topic, p) ?? 0 }).toEqual({ tier: tier.topic, p, committed: broker.records(tier.topic, p).length });
  }
  // How close the case came to the stall budget, to size it by.
  return { longestIdle: watch.longestIdle };
}
