import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Testing } from 'cdktf';
import { TopologyStack } from '../src/emitters/terraform';
import type { TopologyModel } from '../src/model/types';
import { REPO_ROOT } from './helpers/project';
import { aConsumer, aTopology, compile, problems } from './helpers/specs';

/*
 * Every topic krt creates sets compression.type=producer: one that sets none inherits the
 * broker's compression.type, and a broker set to zstd or lz4 recompresses every batch and
 * hands KafkaJS (which reads gzip alone unless a codec is registered) a codec it cannot
 * read. A managed main topic whose spec sets compression.type keeps the spec's value.
 */

type TopicBlock = { name: string; config: Record<string, string> };

/** The kafka_topic blocks of a topology's stack, as Terraform reads them. */
function topicsOf(topology: TopologyModel): TopicBlock[] {
  const stack = JSON.parse(Testing.synth(new TopologyStack(Testing.app(), topology))) as { resource?: { kafka_topic?: Record<string, TopicBlock> } };
  return Object.values(stack.resource?.kafka_topic ?? {});
}

function topologyOf(...consumers: Parameters<typeof aConsumer>[0][]): TopologyModel {
  const result = compile(aTopology({ consumers: consumers.map((c) => aConsumer(c)) }));
  expect(problems(result)).toEqual([]);
  return result.model!.topologies[0]!;
}

it('every topic of every shape of consumer carries compression.type=producer: tiers, draining tiers, DLQ, audit log, a managed main topic', () => {
  const topology = topologyOf(
    { name: 'billing-order-confirmed', topic: { name: 'orders.confirmed', partitions: 6, managed: true }, ladder: ['1m', '10m'], retired: ['5m'] },
    { name: 'shipping-order-shipped', topic: { name: 'orders.shipped', partitions: 3, managed: true, config: { 'retention.ms': 86400000 } }, ordering: 'park-by-key', ladder: ['30s'] },
    { name: 'analytics-order-seen', topic: { name: 'orders.seen', partitions: 3 }, ordering: 'in-place-only', ladder: [] },
  );
  const topics = topicsOf(topology);
  // 2 + 1 draining + DLQ + audit + main; 1 + DLQ + audit + main; DLQ + audit (the main topic is not managed).
  expect(topics.map((t) => t.name).sort()).toEqual(
    [
      'orders.confirmed', 'orders.confirmed.retry.1m', 'orders.confirmed.retry.10m', 'orders.confirmed.retry.5m', 'orders.confirmed.dlq', 'orders.confirmed.dlq.audit',
      'orders.shipped', 'orders.shipped.retry.30s', 'orders.shipped.dlq', 'orders.shipped.dlq.audit',
      'orders.seen.dlq', 'orders.seen.dlq.audit',
    ].sort(),
  );
  for (const topic of topics) expect({ topic: topic.name, compression: topic.config['compression.type'] }).toEqual({ topic: topic.name, compression: 'producer' });
});

it("a managed main topic whose topic.config sets compression.type keeps the spec's; the topology's other topics still say producer", () => {
  const topology = topologyOf({ topic: { name: 'orders.confirmed', partitions: 12, managed: true, config: { 'compression.type': 'zstd', 'retention.ms': 86400000 } } });
  const topics = topicsOf(topology);
  expect(topics.find((t) => t.name === 'orders.confirmed')!.config).toEqual({ 'compression.type': 'zstd', 'retention.ms': '86400000', 'min.insync.replicas': '${var.min_insync_replicas}' });
  for (const topic of topics.filter((t) => t.name !== 'orders.confirmed')) expect(topic.config['compression.type']).toBe('producer');
});

it('an unmanaged main topic gets no config of krt (it is not in the stack), so its topic.config warning is unchanged', () => {
  const unmanaged = compile(aTopology({ consumers: [aConsumer({ topic: { name: 'orders.confirmed', partitions: 12 } })] }));
  expect(problems(unmanaged)).toEqual([]);
  expect(unmanaged.model!.topologies[0]!.consumers[0]!.mainTopic.config).toEqual({});
});

it('every topic of the committed generated/ stacks carries compression.type=producer', () => {
  const root = path.join(REPO_ROOT, 'generated', 'terraform');
  const stacks = readdirSync(root);
  expect(stacks.length).toBeGreaterThan(0);
  for (const stack of stacks) {
    const json = JSON.parse(readFileSync(path.join(root, stack, 'cdk.tf.json'), 'utf8')) as { resource?: { kafka_topic?: Record<string, TopicBlock> } };
    const topics = Object.values(json.resource?.kafka_topic ?? {});
    expect(topics.length).toBeGreaterThan(0);
    for (const topic of topics) expect({ stack, topic: topic.name, compression: topic.config['compression.type'] }).toEqual({ stack, topic: topic.name, compression: 'producer' });
  }
});
