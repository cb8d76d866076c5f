import os from 'node:os';
import path from 'node:path';
import { freshTopics, produce } from '../../bench/kafka';
import { ADMIN_USER, readBrokerInfo, restartBroker, startBroker, stopBroker } from '../../scripts/kafka/broker';
import { DEFAULT_COMMIT_POLICY } from '../../src/runtime/offset-committer';
import type { KafkaPort } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import { kafkaAsAdmin } from '../helpers/kafka';
import { clientNamed, eachClient } from './clients';

jest.setTimeout(6 * 60_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await sleep(50);
  return done();
}

async function restartableBroker(): Promise<{ dir: string; release: () => Promise<void> }> {
  const suiteBroker = process.env.KRT_TEST_BROKER_DIR;
  if (suiteBroker) return { dir: suiteBroker, release: async () => {} };
  const given = process.env.KAFKA_BOOTSTRAP_SERVERS;
  const dir = path.join(process.env.KRT_TEST_WORK_DIR ?? os.tmpdir(), `attack-outage-kafka-${process.pid}`);
  process.env.KAFKA_BOOTSTRAP_SERVERS = (await startBroker({ dir, users: [] })).bootstrapServers;
  return {
    dir,
    release: async () => {
      if (given === undefined) delete process.env.KAFKA_BOOTSTRAP_SERVERS;
      else process.env.KAFKA_BOOTSTRAP_SERVERS = given;
      await stopBroker(dir);
    },
  };
}

/** What the runtime is told: rebalances and seeks, with when (ms since the kill). */
function watched(port: KafkaPort, log: (line: string) => void): KafkaPort {
  return {
    producer: () => port.producer(),
    consumer: (groupId, options) => {
      const c = port.consumer(groupId, options);
      c.onRebalance(() => log(`rebalance of ${groupId}`));
      const seek = c.seek.bind(c);
      c.seek = (s) => (log(`seek ${groupId} ${s.topic.split('.').pop()}-${s.partition} to ${s.offset}`), seek(s));
      return c;
    },
  };
}

/**
 * Attack (s25, target 3): the platformatic 20 s outage (bench/outage.ts) failed its bound of
 * duplicates (500) twice under load; one run here gave 499, of which 9 were tier records and
 * ~490 main records that ran before the bench set `back` (none after). The bench counts every
 * duplicate of the whole run against one window. This is the outage alone, killed while the
 * main commits lag far behind (publishes in flight): a main record finished before the
 * outage must not run again after the rejoins (the adapter seeks past them). Held in the
 * attacker's runs (0 again), under a machine loaded by six jobs.
 *
 * DEFECT (open, s25): on a quieter machine it fails every time, at the attacker's own commit
 * too (9c9711a: 2,827 main records run again; at HEAD 2,827, and 962 in a full run): the main
 * commits stay at the first record whose tier publish is in flight (0:8 1:24 ... at the kill,
 * with all 3,000 records handled), so far more than `maxRecords` records are done and not
 * committed: the commit window counts marks sent, not records finished past the committed
 * offset, and a commit that cannot move still frees the window. The duplicate bound then does
 * not hold. Fix: count the records finished past each partition's committed offset against
 * maxRecords (waiting for room while a publish holds the commit), and find why a tier publish
 * stays unacknowledged that long on @platformatic/kafka.
 */
eachClient('attack: a 20 s broker outage under load', { clients: [clientNamed('@platformatic/kafka')] }, (_port, client) => {
  it.failing('main records finished before the outage do not run again after it', async () => {
    const broker = await restartableBroker();
    const lines: string[] = [];
    let killedAt: number | undefined;
    const log = (line: string) => lines.push(`${killedAt === undefined ? 'before' : `${((Date.now() - killedAt) / 1000).toFixed(1)} s`}: ${line}`);
    try {
      const d = await freshTopics('attack-outage', [10], 6);
      await produce(d.mainTopic, 3_000);
      const mainRuns = new Map<number, number>();
      const tierRuns = new Map<number, number>();
      const again: string[] = [];
      const tierAgain: string[] = [];
      const since = () => (killedAt === undefined ? 'before' : `${((Date.now() - killedAt) / 1000).toFixed(1)}s`);
      const consumer = createRetryingConsumer(d, {
        kafka: watched(client.port(ADMIN_USER), log),
        publishBackoff: { initialMs: 100, maxMs: 1_000 },
        onEvent: (e) => void (e.type === 'commit-failed' && log(`commit failed: ${String(e.error)}`)),
        // As bench/outage.ts: 1 record in 50 fails once on the main topic, into the 10 s tier.
        handler: async (record) => {
          const id = Number(record.message.value!.toString());
          if (record.topic !== d.mainTopic) {
            tierRuns.set(id, (tierRuns.get(id) ?? 0) + 1);
            if (tierRuns.get(id)! > 1) tierAgain.push(`${record.partition}:${record.message.offset}@${since()}`);
            return;
          }
          mainRuns.set(id, (mainRuns.get(id) ?? 0) + 1);
          if (mainRuns.get(id)! > 1) again.push(`${record.partition}:${record.message.offset}@${since()}`);
          if (id % 50 === 7) throw Object.assign(new Error('503'), { name: 'HTTPError', status: 503 });
        },
      });
      await consumer.start();
      try {
        expect(await until(() => mainRuns.size === 3_000, 120_000)).toBe(true);
        const admin = kafkaAsAdmin().admin();
        await admin.connect();
        const [committed] = await admin.fetchOffsets({ groupId: d.groups.main, topics: [d.mainTopic] });
        await admin.disconnect();
        log(`at the kill, committed: ${committed!.partitions.map((p) => `${p.partition}:${p.offset}`).join(' ')}`);
        const info = readBrokerInfo(broker.dir)!;
        killedAt = Date.now();
        process.kill(info.pid, 'SIGKILL');
        await sleep(20_000);
        await restartBroker(broker.dir);
        log('broker answers again');
        await sleep(15_000);
      } finally {
        await consumer.stop();
      }
      const firstAgain = new Map<string, string>();
      for (const a of again) if (!firstAgain.has(a.split(':')[0]!)) firstAgain.set(a.split(':')[0]!, a);
      log(`main records run again: ${again.length}, first per partition: ${[...firstAgain.values()].join(' ')}`);
      log(`tier records run again: ${tierAgain.length}: ${tierAgain.slice(0, 20).join(' ')}`);
      log(`main runs again, when: ${[...new Set(again.map((a) => a.split('@')[1]))].join(' ')}`);
      process.stdout.write(`${lines.join('\n')}\n`);
      expect({ mainAgain: again.length, withinWindow: again.length <= DEFAULT_COMMIT_POLICY.maxRecords }).toEqual({ mainAgain: 0, withinWindow: true });
    } finally {
      await broker.release();
    }
  });
});
