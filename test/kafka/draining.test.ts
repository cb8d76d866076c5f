import { randomBytes } from 'node:crypto';
import { ADMIN_USER } from '../../scripts/kafka/broker';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import type { ConsumerModel, ProjectModel } from '../../src/model/types';
import { planChanges } from '../../src/plan';
import { compareLive, liveQuery, readClusterState } from '../../src/plan/live';
import { kafkajsMonitorPort } from '../../src/runtime/adapters/kafkajs-monitor';
import { createDlqMonitor } from '../../src/runtime/monitor';
import { decodeRetryHeaders } from '../../src/runtime/headers';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { eventually } from '../helpers/eventually';
import { createTopicsOf, kafkaAs, kafkaAsAdmin, produceAsAdmin } from '../helpers/kafka';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { eachClient } from './clients';

jest.setTimeout(120_000);

const http503 = () => Object.assign(new Error('payment-svc 503'), { name: 'HTTPError', status: 503 });

function modelOf(id: string, topic: { name: string; partitions: number }, fields: Record<string, unknown>) {
  const result = compile(aTopology({ consumers: [aConsumer({ name: id, topic, principal: `User:${ADMIN_USER}`, inPlace: { attempts: 1 }, ...fields })] }));
  if (!result.model) throw new Error(result.diagnostics.map((d) => d.message).join('\n'));
  return result.model;
}

/** A consumer on topics of its own. Before: 1s then 8s. After: the 8s tier is retimed to 3s, a 4s tier is added, and 8s drains. */
function scenario() {
  const id = `drain-${randomBytes(4).toString('hex')}`;
  const topic = { name: `${id}.main`, partitions: 2 };
  return { id, topic, before: modelOf(id, topic, { ladder: ['1s', '8s'] }), after: modelOf(id, topic, { ladder: ['1s', '3s', '4s'], retired: ['8s'] }), oldTier: `${id}.main.retry.8s` };
}
const consumerOf = (model: ProjectModel): ConsumerModel => model.topologies[0]!.consumers[0]!;

/** What `krt plan --live` says about the draining tier. */
async function drainingReport(after: ProjectModel): Promise<string[]> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    const findings = compareLive(after, await readClusterState(admin, liveQuery(after)));
    return findings.filter((f) => f.kind === 'draining').map((f) => f.text);
  } finally {
    await admin.disconnect();
  }
}

async function tierLag(group: string, tierTopic: string): Promise<number> {
  const admin = kafkaAsAdmin().admin();
  await admin.connect();
  try {
    const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(tierTopic), admin.fetchOffsets({ groupId: group, topics: [tierTopic] })]);
    const done = new Map(committed!.partitions.map((p) => [p.partition, BigInt(p.offset)]));
    return ends.reduce((lag, e) => lag + Number(BigInt(e.high) - ((done.get(e.partition) ?? -1n) < 0n ? BigInt(e.low) : done.get(e.partition)!)), 0);
  } finally {
    await admin.disconnect();
  }
}

eachClient('retiming a tier that has records waiting in it, with the draining flow', (port) => {
  const { id, topic, before, after, oldTier } = scenario();
  let consumer: RetryingConsumer | undefined;
  afterEach(async () => consumer?.stop());

  it('plans the old tier as draining, not deleted', () => {
    const plan = planChanges(before, after);
    expect(plan.refused).toEqual([]);
    expect(plan.groups.flatMap((g) => g.changes.map((c) => c.risk))).not.toContain('destructive');
  });

  it('processes every waiting record after its due time, sends failures on to the next live tier, and empties the old tier', async () => {
    const v1 = consumerDescriptor(consumerOf(before));
    const v2 = consumerDescriptor(consumerOf(after));
    expect(v2.tiers.map((t) => `${t.label}${t.draining ? ' (draining)' : ''}`)).toEqual(['1s', '3s', '4s', '8s (draining)']);
    await createTopicsOf({ ...v2, tiers: [...v2.tiers, ...v1.tiers.filter((t) => !v2.tiers.some((n) => n.topic === t.topic))] }, topic.partitions);

    // The old ladder runs until every record waits in its 8s tier.
    const keys = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
    const inOldTier = new Set<string>();
    consumer = createRetryingConsumer(v1, {
      kafka: port(),
      handler: async () => {
        throw http503();
      },
      onEvent: (e) => {
        if (e.type === 'routed' && e.destination.kind === 'tier' && e.destination.tier.topic === oldTier) inOldTier.add(e.record.message.key!.toString());
      },
    });
    await consumer.start();
    await produceAsAdmin(topic.name, keys.map((key, i) => ({ key, value: key, partition: i % topic.partitions })));
    await eventually('every record to wait in the 8s tier', () => (inOldTier.size === keys.length ? true : undefined));
    await consumer.stop();
    expect(await tierLag(v1.groups.retry, oldTier)).toBe(keys.length);
    expect(await drainingReport(after)).toEqual([`draining tier 8s ('${oldTier}') still has 6 records waiting; keep it retired`]);
    // The monitor of the new router package reports the draining tier's lag like any tier's.
    const monitor = createDlqMonitor(v2, { port: kafkajsMonitorPort(kafkaAs(ADMIN_USER), v2.groups.monitor) });
    expect((await monitor.poll()).tierLag[oldTier]).toBe(keys.length);

    // The new ladder: the draining tier is still read; odd keys fail once more there.
    const runs: { key: string; topic: string; at: number; dueAt?: number; attempt?: number; ok: boolean }[] = [];
    consumer = createRetryingConsumer(v2, {
      kafka: port(),
      handler: async (record) => {
        const key = record.message.key!.toString();
        const h = decodeRetryHeaders(record.message.headers);
        const fail = record.topic === oldTier && Number(key.slice(1)) % 2 === 1;
        runs.push({ key, topic: record.topic, at: Date.now(), dueAt: h.dueAt, attempt: h.attempt, ok: !fail });
        if (fail) throw http503();
      },
    });
    await consumer.start();
    await eventually('every record to succeed', () => (new Set(runs.filter((r) => r.ok).map((r) => r.key)).size === keys.length ? true : undefined), 60_000);

    for (const run of runs) expect(run.at).toBeGreaterThanOrEqual(run.dueAt!); // never early
    const fromOld = runs.filter((r) => r.topic === oldTier);
    expect(fromOld.map((r) => r.key).sort()).toEqual(keys);
    expect(fromOld.every((r) => r.attempt === 3)).toBe(true);
    // x-attempt 3 failed again: on to the live tier of attempt 4, the 4s tier, not back to the start.
    expect(runs.filter((r) => r.topic === `${id}.main.retry.4s`).map((r) => `${r.key}@${r.attempt}`).sort()).toEqual(['k1@4', 'k3@4', 'k5@4']);
    expect(runs.filter((r) => r.topic === topic.name || r.topic === `${id}.main.retry.1s`)).toEqual([]);
    await eventually('the old tier to be empty for the retry group', async () => ((await tierLag(v2.groups.retry, oldTier)) === 0 ? true : undefined));
    // Only now may the tier leave retired: the live check says so.
    expect(await drainingReport(after)).toEqual([`draining tier 8s ('${oldTier}') is empty: it may leave retired now`]);
  });
});
