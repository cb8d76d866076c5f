import fc from 'fast-check';
import type { KafkaPort } from '../../src/runtime/port';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { httpError, valueOf } from './harness';
import { BIG, HeldMainWorld } from './held-main-world';
import { CONTROL_RECORD } from './control-record-port';

export const SLICES = 8;
/** Records a commit covers at the most: what an incident may run again. */
const WINDOW = 4;

export type Kind = 'small' | 'big' | 'control';

const slice = fc.nat({ max: SLICES });
/** The arbitraries of attack 17's scenario, in its order (fc.record draws them in this order: a seed keeps its case). */
export const heldRecreationsFields = (kinds: readonly Kind[]) => ({
  records: fc.array(fc.record({ kind: fc.constantFrom(...kinds), at: fc.nat({ max: SLICES - 2 }) }), { minLength: 1, maxLength: 14 }),
  inFlight: fc.constantFrom(1, 2, 256),
  commitOutage: fc.option(fc.record({ at: slice, refusals: fc.integer({ min: 1, max: 40 }) }), { nil: undefined }),
  recreations: fc.array(fc.record({ at: slice, rebalance: fc.boolean() }), { minLength: 1, maxLength: 2 }),
  raiseAt: slice,
  rebalances: fc.array(slice, { maxLength: 2 }),
  restartAt: fc.option(slice, { nil: undefined }),
});

/** One case of the widened held-record properties (attacks 16, 17 and 18); each `at` is a slice. */
export interface HeldRecreationsScenario {
  readonly records: readonly { readonly kind: Kind; readonly at: number }[];
  readonly inFlight?: number;
  readonly commitOutage?: { readonly at: number; readonly refusals: number };
  readonly recreations: readonly { readonly at: number; readonly rebalance: boolean }[];
  readonly raiseAt: number;
  readonly rebalances: readonly number[];
  readonly restartAt?: number;
}

/** What a property adds to the run: its port wrapper, an incident of its own, its way to stop a consumer. */
export interface HeldRecreationsHooks {
  readonly port?: (port: KafkaPort) => KafkaPort;
  /** Whether payloads name their topic's id (default none, as kafkajs). */
  readonly topicIds?: 'fetch' | 'none';
  /** Called at each slice once its records are written; returns the incidents it caused. */
  readonly atSlice?: (at: number) => number;
  readonly stop?: (world: HeldMainWorld, retrying: RetryingConsumer) => Promise<void>;
}

export type HeldRecreationsResult = { notRun: string[]; extraRuns: number; incidents: number };

/** The properties' claim: every record of the last log ran, and the records run again stay within a commit window (plus one) per incident. */
export function expectLastLogRanWithinWindows(result: HeldRecreationsResult): void {
  expect(result.notRun).toEqual([]);
  expect(result.extraRuns).toBeLessThanOrEqual((result.incidents + 1) * (WINDOW + 1));
}

/**
 * Runs the main topic through SLICES slices of a minute: records written (big ones held, no
 * copy fitting the tier or the DLQ), the topic recreated with or without a rebalance,
 * rebalances, a restart and the operator raising the limit, each at its slice; then settles
 * and restarts once more. kafkajs's answer to a fetch past a new, shorter log's end (read
 * from the earliest record) is modelled, as the in-memory broker does not give it. Returns the
 * records of the last log that never ran, how many runs of small records were repeats, and
 * the incidents that may each run a commit window again.
 */
export async function runHeldRecreations(s: HeldRecreationsScenario, hooks: HeldRecreationsHooks = {}): Promise<HeldRecreationsResult> {
  const runs: string[] = [];
  /** Where the client reads the main partition next, as far as the handler saw. */
  let nextRead = 0n;
  const world: HeldMainWorld = new HeldMainWorld({
    port: hooks.port,
    ...(hooks.topicIds === undefined ? {} : { topicIds: hooks.topicIds }),
    consumerOptions: { ...(s.inFlight === undefined ? {} : { maxPublishesInFlight: s.inFlight }), commit: { intervalMs: 100, maxRecords: WINDOW } },
    handler: async (record: ConsumedRecord) => {
      if (record.topic !== world.consumer.mainTopic) return;
      const value = valueOf(record);
      nextRead = BigInt(record.message.offset) + 1n;
      runs.push(value.slice(0, value.indexOf('/')));
      if (value.includes('/big')) throw httpError(503);
    },
  });
  const { broker, clock, consumer } = world;
  broker.throwReaction = 'kafkajs';
  const stop = (retrying: RetryingConsumer) => (hooks.stop ? hooks.stop(world, retrying) : retrying.stop());
  let incidents = 0;
  const mainPaused = () => broker.pausedPartitions(consumer.groups.main).includes(`${consumer.mainTopic}-0`);
  const fetchOutOfRange = () => {
    if (!mainPaused() && nextRead > BigInt(broker.records(consumer.mainTopic, 0).length)) broker.readFromEarliest(consumer.mainTopic, 0);
  };
  const produce = (i: number, kind: Kind) => world.produce(kind === 'control' ? CONTROL_RECORD : `v${i}/${kind === 'big' ? BIG : 'small'}`, `k${i}`);
  let retrying = await world.start();
  s.records.forEach((r, i) => (r.at === 0 ? produce(i, r.kind) : undefined));
  for (let at = 0; at <= SLICES; at++) {
    if (at > 0) s.records.forEach((r, i) => (r.at === at ? produce(i, r.kind) : undefined));
    incidents += hooks.atSlice?.(at) ?? 0;
    if (s.commitOutage?.at === at) broker.refuseCommits(consumer.groups.main, s.commitOutage.refusals);
    for (const r of s.recreations) {
      if (r.at !== at) continue;
      incidents++;
      const paused = mainPaused();
      broker.recreateTopic(consumer.mainTopic, { rebalance: r.rebalance });
      if (!r.rebalance && !paused) broker.readFromEarliest(consumer.mainTopic, 0);
    }
    if (s.raiseAt === at) world.maxMessageBytes = 10_000;
    for (const r of s.rebalances) {
      if (r !== at) continue;
      incidents++;
      broker.rebalance(consumer.groups.main);
    }
    if (s.restartAt === at) {
      incidents++;
      await stop(retrying);
      retrying = await world.start();
    }
    await broker.run({ until: clock.now() + 60_000, maxSteps: 20_000 });
    fetchOutOfRange();
  }
  world.maxMessageBytes = 10_000;
  await broker.run({ until: clock.now() + 3_600_000, maxSteps: 50_000 });
  fetchOutOfRange();
  await broker.run({ until: clock.now() + 60_000, maxSteps: 20_000 });
  await stop(retrying);
  retrying = await world.start();
  await broker.run({ until: clock.now() + 3_600_000, maxSteps: 50_000 });
  await stop(retrying);
  const notRun = broker.records(consumer.mainTopic, 0).flatMap((record, offset) => {
    const value = record.value!.toString();
    if (value === CONTROL_RECORD) return [];
    const name = value.slice(0, value.indexOf('/'));
    return runs.includes(name) ? [] : [`${offset}:${name}`];
  });
  // In-place retries run a failing record three times: count the small records only.
  const small = runs.filter((name) => s.records[Number(name.slice(1))]!.kind === 'small');
  const extraRuns = small.length - new Set(small).size;
  return { notRun, extraRuns, incidents };
}
