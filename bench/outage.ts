/**
 * A broker outage under load, per client (#28 finding 2): the wrapped consumer has handled
 * every main record (some wait in a tier), the broker is killed (SIGKILL), stays down, and
 * starts again on the same data. Measured: the time from the broker answering again to
 * every record handled, and how many records ran more than once. The test
 * test/kafka/outages.test.ts runs the same scenario and asserts the duplicate bound.
 */
import { readBrokerInfo, restartBroker } from '../scripts/kafka/broker';
import { createRetryingConsumer } from '../src/runtime/retrying-consumer';
import type { RetryEvent } from '../src/runtime/events';
import type { KafkaPort } from '../src/runtime/port';
import { freshTopics, produce } from './kafka';

export interface OutageResult {
  readonly client: string;
  readonly records: number;
  /** Records that waited in the tier when the broker was killed. */
  readonly waitingInTier: number;
  readonly downMs: number;
  /** From the broker answering again to every record handled; undefined if not within the time allowed. */
  readonly recoveryMs: number | undefined;
  /** Handler runs beyond one success per record (and one failure for each record that fails once). */
  readonly duplicates: number;
  /** The runs again of each consumer: the duplicate bound is per consumer (docs/runtime.md), each with its own commit window. */
  readonly duplicatesOf: { readonly main: number; readonly tier: number };
  readonly lost: number;
  /** Rebalances of the main group while it ran, before the kill (its first join not counted): each an incident of its own, with a commit window of its own. */
  readonly rebalancesBeforeKill: number;
}

export interface OutageOptions {
  readonly client: string;
  readonly port: () => KafkaPort;
  /** The folder of a broker this run may kill and start again. */
  readonly brokerDir: string;
  readonly records?: number;
  readonly downMs?: number;
  /** Longest wait for the recovery after the broker is back. */
  readonly recoveryTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

const http503 = () => Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });
/** Two records in a hundred fail once on the main topic, into a 10 s tier: still waiting when the broker dies. */
const failsOnce = (id: number) => id % 50 === 7;
const TIER_SECONDS = 10;
const PARTITIONS = 6;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** The port, telling `joined` each time a consumer of `groupId` joins its group (a rebalance). */
function countingJoins(port: KafkaPort, groupId: string, joined: () => void): KafkaPort {
  return {
    producer: () => port.producer(),
    consumer: (group, options) => {
      const consumer = port.consumer(group, options);
      if (group === groupId) consumer.onRebalance(joined);
      return consumer;
    },
  };
}

export async function runOutage(options: OutageOptions): Promise<OutageResult> {
  const { records = 3_000, downMs = 20_000, recoveryTimeoutMs = 120_000, log = () => {} } = options;
  const d = await freshTopics(`outage-${options.client.replace(/\W+/g, '')}`, [TIER_SECONDS], PARTITIONS);
  await produce(d.mainTopic, records);
  const successes = new Map<number, number>();
  const failures = new Map<number, number>();
  let routed = 0;
  let commitFailures = 0;
  /** Handler runs after the broker is back: when, and where, for the log. */
  const after: { at: number; topic: string; partition: number; offset: string; again: boolean }[] = [];
  let back: number | undefined;
  let killed = false;
  let joins = 0;
  /** Runs again before the kill (a rebalance while the consumer ran, not the outage): when (ms since the start) and where. */
  const before: { at: number; topic: string; partition: number; offset: string }[] = [];
  const started = performance.now();
  const add = (m: Map<number, number>, id: number) => m.set(id, (m.get(id) ?? 0) + 1);
  const runsOn = { main: new Map<number, number>(), tier: new Map<number, number>() };
  const again = (m: Map<number, number>) => [...m.values()].reduce((n, runs) => n + runs - 1, 0);
  const consumer = createRetryingConsumer(d, {
    kafka: countingJoins(options.port(), d.groups.main, () => {
      if (back === undefined && !killed) joins++;
    }),
    publishBackoff: { initialMs: 100, maxMs: 1_000 },
    handler: async (record) => {
      const id = Number(record.message.value!.toString());
      add(record.topic === d.mainTopic ? runsOn.main : runsOn.tier, id);
      if (back === undefined && successes.has(id)) before.push({ at: performance.now() - started, topic: record.topic === d.mainTopic ? 'main' : 'tier', partition: record.partition, offset: record.message.offset });
      if (back !== undefined) after.push({ at: performance.now() - back, topic: record.topic === d.mainTopic ? 'main' : 'tier', partition: record.partition, offset: record.message.offset, again: successes.has(id) });
      if (record.topic === d.mainTopic && failsOnce(id)) {
        add(failures, id);
        throw http503();
      }
      add(successes, id);
    },
    onEvent: (e: RetryEvent) => {
      if (e.type === 'routed' && e.record.topic === d.mainTopic) routed++;
      if (e.type === 'commit-failed') commitFailures++;
    },
  });
  const expectedFailures = Array.from({ length: records }, (_, id) => id).filter(failsOnce).length;
  await consumer.start();
  try {
    // Every main record handled: the successes, and the failures routed to the tier.
    const mainDone = () => [...successes.keys()].filter((id) => !failsOnce(id)).length === records - expectedFailures && routed >= expectedFailures;
    if (!(await until(mainDone, 120_000))) throw new Error(`${options.client}: the main records were not handled within 2 minutes`);
    const waitingInTier = [...failures.keys()].filter((id) => !successes.has(id)).length;
    const info = readBrokerInfo(options.brokerDir);
    if (!info) throw new Error(`no broker was started from ${options.brokerDir}`);
    killed = true;
    process.kill(info.pid, 'SIGKILL');
    log(`${options.client}: ${records} main records handled, ${waitingInTier} waiting in the tier; broker killed for ${downMs / 1000} s`);
    await sleep(downMs);
    const starting = performance.now();
    await restartBroker(options.brokerDir);
    back = performance.now();
    log(`${options.client}: the broker answered again ${((back - starting) / 1000).toFixed(1)} s after its start (${((back - starting + downMs) / 1000).toFixed(1)} s after the kill)`);
    const recovered = await until(() => successes.size === records, recoveryTimeoutMs);
    const recoveryMs = recovered ? performance.now() - back : undefined;
    await sleep(3_000); // runs again, if any, arrive too
    const duplicates = [...successes.values(), ...failures.values()].reduce((n, runs) => n + runs - 1, 0);
    const duplicatesOf = { main: again(runsOn.main), tier: again(runsOn.tier) };
    const result = { client: options.client, records, waitingInTier, downMs, recoveryMs, duplicates, duplicatesOf, lost: records - successes.size, rebalancesBeforeKill: Math.max(0, joins - 1) };
    for (const topic of ['main', 'tier']) {
      const runs = after.filter((a) => a.topic === topic);
      if (runs.length === 0) continue;
      const again = runs.filter((a) => a.again);
      const from = new Map<number, number>();
      for (const a of again) from.set(a.partition, Math.min(from.get(a.partition) ?? Infinity, Number(a.offset)));
      log(`${options.client}: ${topic}: ${runs.length} runs from ${(runs[0]!.at / 1000).toFixed(1)} s to ${(runs[runs.length - 1]!.at / 1000).toFixed(1)} s after the broker was back, ${again.length} again (from offsets ${[...from].sort(([a], [b]) => a - b).map(([p, o]) => `${p}:${o}`).join(' ')})`);
    }
    if (before.length > 0) {
      const from = new Map<number, number>();
      for (const b of before) from.set(b.partition, Math.min(from.get(b.partition) ?? Infinity, Number(b.offset)));
      log(`${options.client}: ${before.length} runs again before the kill, from ${(before[0]!.at / 1000).toFixed(1)} s to ${(before[before.length - 1]!.at / 1000).toFixed(1)} s after the start (from offsets ${[...from].sort(([a], [b]) => a - b).map(([p, o]) => `${p}:${o}`).join(' ')})`);
    }
    log(`${options.client}: ${commitFailures} commits failed; ${result.rebalancesBeforeKill} rebalances of the main group before the kill`);
    log(`${options.client}: recovered in ${recoveryMs === undefined ? 'never' : `${(recoveryMs / 1000).toFixed(1)} s`}, ${duplicates} duplicates (main ${duplicatesOf.main}, tier ${duplicatesOf.tier}), ${result.lost} lost`);
    return result;
  } finally {
    await consumer.stop();
  }
}
