import fc from 'fast-check';
import { Registry } from 'prom-client';
import type { RetryEvent } from '../../src/runtime/events';
import type { ConsumerPort, KafkaPort } from '../../src/runtime/port';
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
 * Attack 18's widening of attack17-held-anchor-widened-property: the client refuses seeks and
 * resumes now and then (the Confluent client while it rejoins, kafkajs while its consumer
 * restarts), from a slice on, a few times in a row. The rest as attack 17's (no control records).
 * stop() runs with the clock moving (a refused resume is tried again on its timer).
 *
 * It fails at its seed 18 after 11 cases (shrunk: big and small, one publish in flight, a
 * rebalance whose resume is refused once): the partition held again after the rebalance is not
 * paused and its batches spin (attack18-rebalance-refused-resume-held-again-spins). Pinned at
 * seed 18 as it.failing; flip it to `it` once that is fixed, and run it at other seeds.
 *
 * Passes since attack 18's findings were fixed (11d63ff, and resumeOwed in main-pipeline.ts).
 */
const PARAMETERS = asyncPropertyRuns(100);
jest.setTimeout(Math.max(600_000, PARAMETERS.numRuns! * 300));

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
  clientRefusals: fc.option(fc.record({ at: slice, times: fc.integer({ min: 1, max: 3 }), seeks: fc.boolean(), resumes: fc.boolean() }), { nil: undefined }),
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
  const refusing = { seeks: 0, resumes: 0 };
  const kafka: KafkaPort = refusingClientCalls(refusing, hidingControlRecords(
    checkedSends(broker, (records) => {
      if (records.some((r) => r.messages.some((m) => messageBytes(m) > limit))) throw tooLargeError();
    }),
  ));
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
    if (s.clientRefusals?.at === at) {
      incidents++;
      refusing.seeks = s.clientRefusals.seeks ? s.clientRefusals.times : 0;
      refusing.resumes = s.clientRefusals.resumes ? s.clientRefusals.times : 0;
    }
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
      await stopWhileRunning(broker, clock, retrying);
      retrying = await start();
    }
    await broker.run({ until: clock.now() + 60_000, maxSteps: 20_000 });
    fetchOutOfRange();
  }
  limit = 10_000;
  await broker.run({ until: clock.now() + 3_600_000, maxSteps: 50_000 });
  fetchOutOfRange();
  await broker.run({ until: clock.now() + 60_000, maxSteps: 20_000 });
  await stopWhileRunning(broker, clock, retrying);
  retrying = await start();
  await broker.run({ until: clock.now() + 3_600_000, maxSteps: 50_000 });
  await stopWhileRunning(broker, clock, retrying);
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

/**
 * stop() while the clock runs: a refused seek or resume is tried again on the clock's timer
 * (RESUME_RETRY_MS), which stop() waits for; with the virtual clock standing still it never comes.
 */
async function stopWhileRunning(broker: MemoryBroker, clock: VirtualClock, retrying: RetryingConsumer): Promise<void> {
  let stopped = false;
  const stopping = retrying.stop().finally(() => (stopped = true));
  await broker.run({ until: clock.now() + 60_000, maxSteps: 20_000, stopWhen: () => stopped }).catch(() => undefined);
  await stopping;
}

/** `port` whose consumers refuse the next `refusing.seeks` seeks and `refusing.resumes` resumes. */
function refusingClientCalls(refusing: { seeks: number; resumes: number }, port: KafkaPort): KafkaPort {
  return {
    producer: port.producer,
    consumer: (groupId, options): ConsumerPort => {
      const inner = port.consumer(groupId, options);
      return new Proxy(inner, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver) as unknown;
          if (name === 'seek' || name === 'resume') {
            return (...args: unknown[]) => {
              const kind = name === 'seek' ? 'seeks' : 'resumes';
              if (refusing[kind] > 0) {
                refusing[kind]--;
                throw new Error('Erroneous state');
              }
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          }
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
}

describe('attack 18: unordered, the main topic created again while records are held, the client refusing seeks and resumes now and then', () => {
  const holds = async (s: Scenario) => {
    const result = await run(s);
    expect(result.notRun).toEqual([]);
    expect(result.extraRuns).toBeLessThanOrEqual((result.incidents + 1) * (WINDOW + 1));
  };

  it('runs every record of the last log, and runs again no more than a commit window per incident', async () => {
    await fc.assert(fc.asyncProperty(scenario, holds), { ...PARAMETERS, seed: 18, numRuns: Math.max(PARAMETERS.numRuns!, 100) });
  });
});
