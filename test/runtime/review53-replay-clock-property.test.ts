import fc from 'fast-check';
import { HEADERS } from '../../src/naming/headers';
import { asyncPropertyRuns } from './fault-runs';
import { consumer, tier1m, world } from './park-by-key-world';

/**
 * Review 53: a widened property for aebebc4 (a waiting replay's place by x-due-at against parked
 * records' timestamps). One main partition, keys k and h; main records whose producer clock is
 * skewed (seconds to an hour, either way), failing once or not; DLQ replays of k or h whose
 * x-due-at is now, in the past, or 0, failing once or not; restarts and rebalances at any step;
 * small parking budgets. Checks: no record lost or stuck (each value succeeds once the world has
 * run six hours past the last step), and each key's main records succeed in offset order.
 * KRT_PROPERTY_RUNS / KRT_PROPERTY_SEED as the other properties.
 */
const PARAMETERS = asyncPropertyRuns(40);
jest.setTimeout(Math.max(300_000, PARAMETERS.numRuns! * 2_000));

const key = fc.constantFrom('k', 'k', 'h');
const step = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('produce' as const), key, fail: fc.boolean(), skew: fc.constantFrom(0, 0, 5_000, -5_000, 3_600_000, -3_600_000) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replay' as const), key, fail: fc.boolean(), due: fc.constantFrom('now' as const, 'past' as const, 'zero' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(1_000, 30_000, 120_000, 900_000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('restart' as const, 'rebalance' as const) }) },
);
const honestStep = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('produce' as const), key, fail: fc.boolean(), skew: fc.constantFrom(0, 0, -5_000, -3_600_000) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replay' as const), key, fail: fc.boolean(), due: fc.constant('now' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(1_000, 30_000, 120_000, 900_000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('restart' as const, 'rebalance' as const) }) },
);
const honest = fc.record({
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  budget: fc.constantFrom(undefined, 70, 90, 110, 140, 200),
  steps: fc.array(honestStep, { minLength: 3, maxLength: 18 }),
});
const scenario = fc.record({
  reaction: fc.constantFrom('kafkajs' as const, 'confluent' as const),
  budget: fc.constantFrom(undefined, 70, 90, 110, 140, 200),
  steps: fc.array(step, { minLength: 3, maxLength: 18 }),
});

async function runCase(s: typeof scenario extends fc.Arbitrary<infer T> ? T : never) {
  const w = world();
  w.broker.throwReaction = s.reaction;
  const start = () => w.start(s.budget === undefined ? {} : { parkingBudgetBytes: s.budget });
  let running = await start();
  const values: string[] = [];
  const mainOrder = new Map<string, string[]>();
  /** Per replay: its key's main records parked and not yet run when it was written, and whether a restart or rebalance came after. */
  const parkedBefore = new Map<string, { ahead: string[]; generationsAfter: number }>();
  let n = 0;
  for (const st of s.steps) {
    if (st.kind === 'restart' || st.kind === 'rebalance') for (const entry of parkedBefore.values()) entry.generationsAfter++;
    if (st.kind === 'produce') {
      const value = `m${n++}`;
      const label = `${st.key}:${value}`;
      if (st.fail) w.failOnce.add(label);
      w.broker.append(consumer.mainTopic, { key: Buffer.from(st.key), value: Buffer.from(value), partition: 0, timestamp: w.clock.now() + st.skew });
      values.push(label);
      mainOrder.set(st.key, [...(mainOrder.get(st.key) ?? []), label]);
    } else if (st.kind === 'replay') {
      const value = `r${n++}`;
      const label = `${st.key}:${value}`;
      if (st.fail) w.failOnce.add(label);
      const dueAt = st.due === 'now' ? w.clock.now() : st.due === 'past' ? w.clock.now() - 600_000 : 0;
      w.broker.append(tier1m!.topic, {
        key: Buffer.from(st.key),
        value: Buffer.from(value),
        partition: 0,
        headers: {
          [HEADERS.attempt]: '2',
          [HEADERS.dueAt]: String(dueAt),
          [HEADERS.originalTopic]: consumer.mainTopic,
          [HEADERS.originalPartition]: '0',
          [HEADERS.originalOffset]: '0',
          [HEADERS.replayedFromDlq]: `${consumer.dlqTopic}/0:${n}`,
        },
      });
      values.push(label);
      const parked = w.events.filter((e) => e.type === 'parked' && e.record.topic === consumer.mainTopic && e.key === st.key).map((e) => `${st.key}:${(e as { record: { message: { value: Buffer | null } } }).record.message.value!.toString()}`);
      const done = w.handled.filter((h) => !h.endsWith(' FAIL'));
      parkedBefore.set(label, { ahead: [...new Set(parked)].filter((l) => !done.includes(l)), generationsAfter: 0 });
    } else if (st.kind === 'advance') {
      w.clock.setTimer(st.ms, () => undefined);
      await w.broker.run({ until: w.clock.now() + st.ms });
    } else if (st.kind === 'restart') {
      await running.stop();
      running = await start();
    } else {
      w.broker.rebalance(consumer.groups.main);
    }
    w.clock.setTimer(10, () => undefined);
    await w.broker.run({ until: w.clock.now() + 10 });
  }
  w.clock.setTimer(6 * 3_600_000, () => undefined);
  await w.broker.run({ until: w.clock.now() + 6 * 3_600_000 });
  await running.stop();
  return { w, values, mainOrder, parkedBefore };
}

describe('review 53: waiting replays by x-due-at against parked records, skewed clocks, restarts, small budgets', () => {
  it('loses no record, strands none, and runs each key\'s main records in offset order', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { w, values, mainOrder } = await runCase(s);
        const succeeded = w.handled.filter((h) => !h.endsWith(' FAIL'));
        expect(values.filter((v) => !succeeded.includes(v))).toEqual([]);
        for (const [, labels] of mainOrder) {
          const firstSuccess = labels.map((l) => succeeded.indexOf(l));
          expect(firstSuccess).toEqual([...firstSuccess].sort((a, b) => a - b));
        }
      }),
      PARAMETERS,
    );
  });

  /** docs/runtime.md: a waiting replay "runs after the parked records that were read before it came due" (in one generation). */
  const replaysAfterParked = (s: typeof scenario extends fc.Arbitrary<infer T> ? T : never) => async () => {
    const { w, parkedBefore } = await runCase(s);
    const out: string[] = [];
    let hit = false;
    for (const [replay, { ahead, generationsAfter }] of parkedBefore) {
      if (generationsAfter > 0) continue;
      if (ahead.length > 0 && w.events.some((e) => e.type === 'parked' && e.record.topic === tier1m!.topic && `${e.key}:${e.record.message.value!.toString()}` === replay)) hit = true;
      const ran = w.handled.findIndex((h) => h === replay || h === `${replay} FAIL`);
      for (const m of ahead) if (ran >= 0 && w.handled.indexOf(m) > ran) out.push(`${replay} ran before ${m}, parked before it was written`);
    }
    if (hit) hits++;
    return out;
  };
  let hits = 0;
  afterAll(() => console.log(`review53: cases with a waiting replay behind parked records: ${hits}`));

  it('honest clocks (no producer ahead, x-due-at now): a replay runs after its key\'s records parked before it was written, in one generation', async () => {
    await fc.assert(fc.asyncProperty(honest, async (s) => expect(await replaysAfterParked(s)()).toEqual([])), PARAMETERS);
  });

  it('any clocks: a replay runs after its key\'s records parked before it was written, in one generation (finding 1, review53-timestamp-jumps-parked)', async () => {
    await fc.assert(fc.asyncProperty(scenario, async (s) => expect(await replaysAfterParked(s)()).toEqual([])), PARAMETERS);
  });
});
