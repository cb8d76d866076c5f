import path from 'node:path';
import os from 'node:os';
import { ADMIN_USER } from '../../scripts/kafka/broker';
import { eventually } from '../helpers/eventually';
import { confluentKafka } from '../helpers/kafka';
import { sleep } from '../helpers/suite-broker';
import { startCluster } from '../helpers/kraft-cluster';
import type { Cluster } from '../helpers/kraft-cluster';
import { allRan, expectedRuns, firstRuns, groupAssignments, member, timedStop } from './attack48-fleet';
import type { Member } from './attack48-fleet';

jest.setTimeout(12 * 60_000);

/**
 * Attack 48: the group coordinator moved to another broker three times (a two-broker cluster,
 * __consumer_offsets on both; the broker that leads it killed, started again once the other
 * took over) while two park-by-key consumers on the Confluent client run with keys in retry,
 * records parked and state commits, confirming reads and reader reads in flight; records are
 * produced throughout (topics on both brokers).
 *
 * Held (1 of 1 run, after a first run that only found the harness restarting the broker before
 * the controller fenced it): the coordinator moved 2 -> 3 -> 2 -> 3, each key's 30 records ran
 * once in order, nothing stayed paused, stop() in 0.1-1.7 s. The cluster (one controller, two
 * brokers) is test/helpers/kraft-cluster.ts.
 */
describe('attack 48: Confluent park-by-key through coordinator moves in a two-broker cluster', () => {
  it('loses nothing, runs nothing early, keeps each key in order, pauses nothing for good and stops in time', async () => {
    const given = process.env.KAFKA_BOOTSTRAP_SERVERS;
    const log: string[] = [];
    const t0 = Date.now();
    const at = (what: string) => log.push(`${Date.now() - t0} ${what}`);
    let cluster: Cluster | undefined;
    const fleet: Member[] = [];
    let producing = true;
    let produced = 0;
    try {
      cluster = await startCluster(path.join(process.env.KRT_TEST_WORK_DIR ?? os.tmpdir(), `a48-cluster-${process.pid}`));
      process.env.KAFKA_BOOTSTRAP_SERVERS = cluster.bootstrapServers;
      at(`cluster up at ${cluster.bootstrapServers}`);
      for (let i = 0; i < 2; i++) fleet.push(await member(`a48-move-${i}`, confluentKafka(ADMIN_USER), { replicationFactor: 2 }));
      await cluster.knownEverywhere(fleet.flatMap((m) => [m.d.mainTopic, ...m.d.tiers.map((t) => t.topic)]));
      await Promise.all(fleet.map((m) => m.consumer.start()));
      await Promise.all(fleet.map((m) => m.produce(1, 4)));
      produced = 4;
      const producer = (async () => {
        while (producing && produced < 30) {
          const next = produced + 1;
          const ok = await Promise.all(fleet.map((m) => m.produce(next, next))).then(() => true, (error: unknown) => (at(`producing ${next} failed: ${String(error)}`), false));
          if (ok) produced = next;
          await sleep(ok ? 500 : 1_000);
        }
      })();
      await eventually('keys in retry', () => (fleet.every((m) => m.handled.includes('d:1 FAIL')) ? true : undefined), 90_000, async () => {
        const groups = await Promise.all(fleet.map((m) => groupAssignments(m.d.groups.main).catch((error: unknown) => `(${String(error)})`)));
        return fleet.map((m, i) => `consumer ${i}: ${m.handled.join(' ')}; events: ${m.events.join(' | ')}\n   group: ${groups[i]}\n   trace:\n${m.trace.join('\n')}`).join('\n');
      });
      for (let round = 0; round < 3; round++) {
        await sleep(3_000);
        const coordinator = await cluster.coordinator();
        at(`round ${round}: killing the coordinator, broker ${coordinator.id} (produced ${produced})`);
        cluster.kill(coordinator);
        // Until the controller fenced it (its broker session, 9 s) and the other broker leads the offsets topic.
        await eventually('the coordinator to move', async () => ((await cluster!.coordinator()).id !== coordinator.id ? true : undefined), 60_000);
        at(`round ${round}: coordinator moved to broker ${(await cluster.coordinator()).id}`);
        await sleep(3_000);
        cluster.start(coordinator);
        await cluster.inSync();
        at(`round ${round}: broker ${coordinator.id} back in sync; coordinator now ${(await cluster.coordinator()).id}`);
      }
      producing = false;
      await producer;
      at(`produced ${produced}`);
      const last = produced;
      await eventually('every record of both consumers', () => (fleet.every((m) => allRan(m, last)) ? true : undefined), 4 * 60_000).catch((error: unknown) => at(String(error)));
      for (const [i, m] of fleet.entries()) {
        if (JSON.stringify(firstRuns(m)) !== JSON.stringify(expectedRuns(last))) at(`consumer ${i}: ${m.handled.join(' ')}\n   events: ${m.events.join(' | ')}\n   runs: ${m.runs.join(' | ')}\n   trace:\n${m.trace.join('\n')}`);
      }
      const stops = await Promise.all(fleet.map((m) => timedStop(m.consumer)));
      at(`stops: ${JSON.stringify(stops)}`);
      fleet.splice(0).forEach((m, i) => expect({ i, runs: firstRuns(m) }).toEqual({ i, runs: expectedRuns(last) }));
      for (const s of stops) expect(s.outcome).toBe('stopped');
    } finally {
      producing = false;
      process.stdout.write(`${log.join('\n')}\n`);
      await Promise.all(fleet.map((m) => m.consumer.stop().catch(() => undefined)));
      await cluster?.stop();
      if (given === undefined) delete process.env.KAFKA_BOOTSTRAP_SERVERS;
      else process.env.KAFKA_BOOTSTRAP_SERVERS = given;
    }
  });
});
