import fc from 'fast-check';
import { Registry } from 'prom-client';
import type { RetryEvent } from '../../src/runtime/events';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { asyncPropertyRuns } from './fault-runs';
import { httpError, valueOf } from './harness';
import { checkedSends, messageBytes, tooLargeError } from './too-large-port';
import { CONTROL_RECORD, hidingControlRecords } from './control-record-port';

/**
 * Attack 17's widening of attack16-recreated-main-held-property, for the held-partition anchor
 * (cbe5b4e: a partition paused the moment its publish is held, read again from its last record
 * taken and checked by identity, nothing of it committed until then). Added: one, two or the
 * default 256 publishes in flight per partition (a batch then waits inside eachBatch through a
 * hold), control records (a transactional producer's markers: offsets no batch hands out, so a
 * new log may have none at the anchor's offset), and a commit outage (no commit acknowledged, so
 * the anchor alone judges the log). The rest as attack 16's: once the run settles, every record
 * of the main topic's last log ran, and the records run again stay within a commit window (plus
 * one) per incident.
 *
 * It fails at its seed 17 after 3 cases: one held record with one publish in flight never
 * settles (attack17-in-flight-limit-held-keeps-batch-slot; the same wait commits the old log's
 * position onto a new one, attack17-in-flight-limit-held-commits-old-position). With that wait
 * patched locally (`&& !progress.holding`), seed 17 fails on a new log whose offset 0 is a control
 * record (attack17-new-log-hidden-start-read-past), and without control records seeds 17 to 22
 * (100 cases each) pass. Each finding has its own test; flip this to `it` once they are fixed.
 *
 * Passes since the wait for room in flight ends on a hold (e84b88c), a resume that finds the
 * group's commit moved back starts the partition over, and a withheld partition's refused commits
 * are not tried again (offset-committer withhold).
 */
const PARAMETERS = asyncPropertyRuns(100);
jest.setTimeout(Math.max(120_000, PARAMETERS.numRuns! * 300));

const SLICES = 8;
const WINDOW = 4;
const slice = fc.nat({ max: SLICES });
type Kind = 'small' | 'big' | 'control';
const scenarioOf = (kinds: readonly Kind[]) => fc.record({
  records: fc.array(fc.record({ kind: fc.constantFrom(...kinds), at: fc.nat({ max: SLICES - 2 }) }), { minLength: 1, maxLength: 14 }),
  inFlight: fc.constantFrom(1, 2, 256),
  commitOutage: fc.option(fc.record({ at: slice, refusals: fc.integer({ min: 1, max: 40 }) }), { nil: undefined }),
  recreations: fc.array(fc.record({ at: slice, rebalance: fc.boolean() }), { minLength: 1, maxLength: 2 }),
  raiseAt: slice,
  rebalances: fc.array(slice, { maxLength: 2 }),
  restartAt: fc.option(slice, { nil: undefined }),
});
const scenario = scenarioOf(['small', 'small', 'big']);
/** With control records: a new log may hide its offset 0 or the anchor's offset. */
const scenarioWithControls = scenarioOf(['small', 'small', 'big', 'control']);
type Scenario = typeof scenarioWithControls extends fc.Arbitrary<infer S> ? S : never;

async function run(s: Scenario): Promise<{ notRun: string[]; extraRuns: number; incidents: number }> {
  const consumer = billingDescriptor();
  const clock = new VirtualClock(1_000_000);
  const broker = new MemoryBroker(clock);
  broker.throwReaction = 'kafkajs';
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
  let limit = 2_000;
  const kafka: KafkaPort = hidingControlRecords(
    checkedSends(broker, (records) => {
      if (records.some((r) => r.messages.some((m) => messageBytes(m) > limit))) throw tooLargeError();
    }),
  );
  const runs: string[] = [];
  const events: RetryEvent[] = [];
  const start = async (): Promise<RetryingConsumer> => {
    const retrying = createRetryingConsumer(consumer, {
      kafka,
      clock,
      registry: new Registry(),
      random: () => 0.5,
      maxPublishesInFlight: s.inFlight,
      commit: { intervalMs: 100, maxRecords: WINDOW },
      onEvent: (e) => events.push(e),
      handler: async (record: ConsumedRecord) => {
        if (record.topic !== consumer.mainTopic) return;
        const value = valueOf(record);
        nextRead = BigInt(record.message.offset) + 1n;
        runs.push(value.slice(0, value.indexOf('/')));
        if (value.includes('/big')) throw httpError(503);
      },
    });
    await retrying.start();
    return retrying;
  };
  let incidents = 0;
  /** Where the client reads the main partition next, as far as the handler saw. */
  let nextRead = 0n;
  /** kafkajs's answer to a fetch past the log's end (a new, shorter log): the partition is read from its earliest record. The in-memory broker does not give it. */
  const fetchOutOfRange = () => {
    const paused = broker.pausedPartitions(consumer.groups.main).includes(`${consumer.mainTopic}-0`);
    if (!paused && nextRead > BigInt(broker.records(consumer.mainTopic, 0).length)) broker.readFromEarliest(consumer.mainTopic, 0);
  };
  let retrying = await start();
  s.records.forEach((r, i) => (r.at === 0 ? produce(i, r.kind) : undefined));
  function produce(i: number, kind: 'small' | 'big' | 'control'): void {
    const value = kind === 'control' ? CONTROL_RECORD : `v${i}/${kind === 'big' ? `big${'x'.repeat(1_897)}` : 'small'}`;
    broker.append(consumer.mainTopic, { key: Buffer.from(`k${i}`), value: Buffer.from(value), partition: 0 });
  }
  for (let at = 0; at <= SLICES; at++) {
    if (at > 0) s.records.forEach((r, i) => (r.at === at ? produce(i, r.kind) : undefined));
    if (s.commitOutage?.at === at) broker.refuseCommits(consumer.groups.main, s.commitOutage.refusals);
    for (const r of s.recreations) {
      if (r.at !== at) continue;
      incidents++;
      const paused = broker.pausedPartitions(consumer.groups.main).includes(`${consumer.mainTopic}-0`);
      broker.recreateTopic(consumer.mainTopic, { rebalance: r.rebalance });
      if (!r.rebalance && !paused) broker.readFromEarliest(consumer.mainTopic, 0);
    }
    if (s.raiseAt === at) limit = 10_000;
    for (const r of s.rebalances) {
      if (r !== at) continue;
      incidents++;
      broker.rebalance(consumer.groups.main);
    }
    if (s.restartAt === at) {
      incidents++;
      await retrying.stop();
      retrying = await start();
    }
    await broker.run({ until: clock.now() + 60_000, maxSteps: 20_000 });
    fetchOutOfRange();
  }
  limit = 10_000;
  await broker.run({ until: clock.now() + 3_600_000, maxSteps: 50_000 });
  fetchOutOfRange();
  await broker.run({ until: clock.now() + 60_000, maxSteps: 20_000 });
  await retrying.stop();
  retrying = await start();
  await broker.run({ until: clock.now() + 3_600_000, maxSteps: 50_000 });
  await retrying.stop();
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

describe('attack 17: unordered, the main topic created again while records are held, with publishes in flight at their limit, control records and a commit outage', () => {
  const holds = async (s: Scenario) => {
    const result = await run(s);
    expect(result.notRun).toEqual([]);
    expect(result.extraRuns).toBeLessThanOrEqual((result.incidents + 1) * (WINDOW + 1));
  };

  it('runs every record of the last log, and runs again no more than a commit window per incident', async () => {
    await fc.assert(fc.asyncProperty(scenario, holds), { ...PARAMETERS, seed: PARAMETERS.seed ?? 17, numRuns: Math.max(PARAMETERS.numRuns!, 100) });
  });

  // Open: a new log whose offset 0 (or the anchor's offset) holds a control record is read past
  // its first records where no hold judges it (attack17-new-log-hidden-start-read-past, second
  // case; attack17-anchor-gap-in-new-log-reads-on). Pinned at seed 1701, which fails within 300.
  it.failing('with control records too, runs every record of the last log', async () => {
    await fc.assert(fc.asyncProperty(scenarioWithControls, holds), { ...PARAMETERS, seed: 1701, numRuns: 300 });
  });
});
