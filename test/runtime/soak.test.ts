import fc from 'fast-check';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { FaultyPort } from '../../src/simulate/faulty-port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { httpError } from './harness';

// The default runs take a few seconds; a loaded CI machine may take several times that.
jest.setTimeout(120_000);

const T0 = 1_000_000;
/** Bounded so that `npm test` stays fast; KRT_PROPERTY_RUNS raises it for a longer soak. */
const SOAK_RUNS = { numRuns: Number(process.env.KRT_PROPERTY_RUNS ?? 60) };
const PARTITIONS = 3;

/** How a record's handler behaves: fine, a permanent error, a transient one `n` times, or a throw of something odd. */
type Behaviour = { kind: 'ok' } | { kind: 'poison' } | { kind: 'flaky'; times: number } | { kind: 'odd' };
/**
 * Between stretches of time: nothing, a rebalance, a clean restart (stop() then a new
 * process), or the broker refusing the next writes to every tier and the DLQ, or the
 * next commits of every group. Crashes come at any step, not between stretches.
 */
type Action = 'run' | 'rebalance' | 'restart' | 'refuse-writes' | 'refuse-commits';

const behaviours = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Behaviour>({ kind: 'ok' }) },
  fc.constant<Behaviour>({ kind: 'poison' }),
  fc.integer({ min: 1, max: 4 }).map<Behaviour>((times) => ({ kind: 'flaky', times })),
  fc.constant<Behaviour>({ kind: 'odd' }),
);
/** `stage`: produced before the stretch of that number, so records arrive while writes or commits are refused too. */
const records = fc.array(
  fc.record({ key: fc.option(fc.constantFrom('a', 'b', 'c', 'd'), { nil: null }), partition: fc.nat({ max: PARTITIONS - 1 }), behaviour: behaviours, stage: fc.nat({ max: 4 }) }),
  { minLength: 1, maxLength: 25 },
);
const actions = fc.array(
  fc.record({ action: fc.oneof({ weight: 3, arbitrary: fc.constant<Action>('refuse-writes') }, { weight: 4, arbitrary: fc.constantFrom<Action>('run', 'rebalance', 'restart', 'refuse-commits') }), advanceMs: fc.integer({ min: 0, max: 200_000 }), refusals: fc.integer({ min: 1, max: 6 }) }),
  { maxLength: 8 },
);
/** Port calls at which the process dies hard: no stop(), nothing more of it reaches the broker. */
const crashes = fc.array(fc.nat({ max: 300 }), { maxLength: 3 });

async function soak(d: ConsumerDescriptor, batch: { key: string | null; partition: number; behaviour: Behaviour; stage: number }[], schedule: { action: Action; advanceMs: number; refusals: number }[], crashSteps: number[]) {
  const clock = new VirtualClock(T0);
  const broker = new MemoryBroker(clock);
  // A refused commit thrown out of eachMessage is delivered again, as kafkajs does.
  broker.throwReaction = 'kafkajs';
  for (const topic of [d.mainTopic, ...d.tiers.map((t) => t.topic), d.dlqTopic]) broker.createTopic(topic, PARTITIONS);
  const groups = [...new Set([d.groups.main, d.groups.retry])];
  const faulty = new FaultyPort(broker.port(), { faults: [], events: crashSteps.map((at) => ({ kind: 'crash' as const, at })) });
  const calls = new Map<string, number>();
  const succeeded = new Set<string>();
  const behaviourOf = new Map(batch.map((r, i) => [`r${i}`, r.behaviour]));
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
        const behaviour = behaviourOf.get(id)!;
        if (behaviour.kind === 'poison') throw new SyntaxError('unreadable');
        if (behaviour.kind === 'odd') throw Object.create(null);
        if (behaviour.kind === 'flaky' && call <= behaviour.times) throw httpError(503);
        succeeded.add(id);
      },
    });
    await retrying.start();
    return retrying;
  };
  const produce = (stage: (s: number) => boolean) =>
    batch.forEach((r, i) => stage(r.stage) && broker.append(d.mainTopic, { key: r.key === null ? null : Buffer.from(r.key), value: Buffer.from(`r${i}`), partition: r.partition }));
  let retrying = await start();
  /** Runs until `until` (or until nothing is left); a process that crashed on the way is followed by a new one. */
  const runUntil = async (until?: number) => {
    for (;;) {
      await broker.run({ until, stopWhen: () => faulty.crashed });
      if (!faulty.crashed) return;
      retrying = await start();
    }
  };
  for (const [stage, { action, advanceMs, refusals }] of schedule.entries()) {
    produce((s) => s === stage);
    await runUntil(clock.now() + advanceMs);
    if (action === 'rebalance') for (const group of groups) broker.rebalance(group);
    if (action === 'restart') {
      await retrying.stop();
      retrying = await start();
    }
    if (action === 'refuse-writes') for (const topic of [...d.tiers.map((t) => t.topic), d.dlqTopic]) broker.refuseWrites(topic, refusals);
    if (action === 'refuse-commits') for (const group of groups) broker.refuseCommits(group, refusals);
  }
  produce((s) => s >= schedule.length);
  await runUntil();
  faulty.stopFaults();
  await retrying.stop();

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
}

describe('a soak on the in-memory broker: random poison records, rebalances, restarts, refused writes and commits, hard crashes', () => {
  const tiers = billingDescriptor().tiers.slice(0, 2);

  it('loses nothing and leaves no partition stuck, unordered', async () => {
    const d = billingDescriptor({ tiers, inPlace: { attempts: 2, backoffMs: 100, maxBackoffMs: 1_000, jitter: 0.5 } });
    await fc.assert(fc.asyncProperty(records, actions, crashes, (batch, schedule, crashSteps) => soak(d, batch, schedule, crashSteps)), SOAK_RUNS);
  });

  it('loses nothing and leaves no partition stuck, with park-by-key', async () => {
    const d = billingDescriptor({ tiers, ordering: 'park-by-key', groups: { ...billingDescriptor().groups, retry: billingDescriptor().groups.main } });
    await fc.assert(fc.asyncProperty(records, actions, crashes, (batch, schedule, crashSteps) => soak(d, batch, schedule, crashSteps)), SOAK_RUNS);
  });
});
