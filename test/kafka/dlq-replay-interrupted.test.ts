import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Admin } from 'kafkajs';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { passwordOf } from '../../scripts/kafka/broker';
import { exitWithin, spawnChild } from '../helpers/child-process';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, exampleModel, kafkaAsAdmin } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';

jest.setTimeout(180_000);

/**
 * Ctrl-C during `krt dlq replay`, as the operator presses it: the command says what it does,
 * ends after the part in hand (published, audited and committed), names what it left, and
 * leaves the replay group, so the next command, with the ids it names, is not refused and
 * publishes only the rest.
 * Every record reaches the tier once, with one audit entry.
 */
const run = `interrupted-${randomBytes(3).toString('hex')}`;
const env = { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: 'orders-replay', KAFKA_SASL_PASSWORD: passwordOf('orders-replay'), KAFKA_SSL: 'false' };
const RECORDS = 8;

/** Our dead letters, in DLQ partition 0, with their ids. */
async function deadLetters(billing: ConsumerModel): Promise<string[]> {
  const producer = kafkaAsAdmin().producer();
  await producer.connect();
  const [meta] = await producer.send({
    topic: billing.dlq.name,
    acks: -1,
    messages: Array.from({ length: RECORDS }, (_, i) => ({
      partition: 0,
      key: `order-${i}`,
      value: `${run}-${i}`,
      headers: { [HEADERS.originalTopic]: billing.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'DownstreamTimeout', [HEADERS.attempt]: '1' },
    })),
  });
  await producer.disconnect();
  const base = BigInt(meta!.baseOffset!);
  return Array.from({ length: RECORDS }, (_, i) => `0:${base + BigInt(i)}`);
}

/** The values of ours in a topic, as the admin reads them from the start. */
async function oursIn(topic: string, valueOf: (value: string) => string | undefined, atLeast: number): Promise<string[]> {
  const consumer = kafkaAsAdmin().consumer({ groupId: `reader-${randomBytes(3).toString('hex')}` });
  const found: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void (valueOf(message.value?.toString() ?? '') !== undefined && found.push(valueOf(message.value!.toString())!)) });
  await eventually(`${atLeast} of ours in ${topic}`, () => (found.length >= atLeast ? true : undefined), 60_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // copies, if any, arrive too
  await consumer.disconnect();
  return found.sort();
}

async function tierCount(admin: Admin, topic: string): Promise<number> {
  return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
}

describe('krt dlq replay stopped with Ctrl-C, on a real broker', () => {
  it('ends after the part in hand, says what it left, leaves the lease, and the next run publishes only the rest', async () => {
    const billing = (await exampleModel()).topologies.find((t) => t.name === 'orders')!.consumers[0]!;
    const tier = billing.tiers[0]!.name;
    const ids = await deadLetters(billing);
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      const before = await tierCount(admin, tier);
      const replay = (rate: string, which: readonly string[]) =>
        spawnChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'dlq', 'replay', billing.name, '--ids', which.join(','), '--rate', rate, '--by', 'ana'], { cwd: REPO_ROOT, env });
      // One record a second: the first is published at once, the rest wait for the rate limit.
      const first = replay('1', ids);
      await eventually('the replay publishes', async () => {
        first.assertRunning('krt dlq replay');
        return (await tierCount(admin, tier)) > before ? true : undefined;
      }, 60_000);
      first.process.kill('SIGINT');
      const exit = await exitWithin(first, 10_000);
      const members = (await admin.describeGroups([billing.groups.replay])).groups[0]?.members.length ?? 0;
      // Its stderr, when the exit is not the signal's, says why.
      expect({ exit, members, stderr: exit !== 'still running' && exit.signal === 'SIGINT' ? '' : first.stderr() }).toEqual({ exit: { code: null, signal: 'SIGINT' }, members: 0, stderr: '' });
      expect(first.stderr()).toContain('stopping after the part in hand');
      const left = /stopped by a signal after the part in hand: \d+ records? left unhandled in the DLQ; to go on, run it again with --ids ([\d:,]+)/.exec(first.stdout())?.[1];
      expect(left?.split(',').length).toBeGreaterThan(0);

      // As the line says: the ids left, at a rate that takes them at once.
      const rest = replay('100', left!.split(','));
      const restExit = await exitWithin(rest, 60_000);
      // Its stderr holds its progress; an error, if any, is shown.
      expect({ exit: restExit, error: /krt: /.test(rest.stderr()) ? rest.stderr() : '' }).toEqual({ exit: { code: 0, signal: null }, error: '' });
      const ourValue = (value: string) => (value.startsWith(`${run}-`) ? value : undefined);
      const ourEntry = (value: string) => {
        const entry = JSON.parse(value) as { partition?: number; offset?: string; action?: string };
        const id = `${entry.partition}:${entry.offset}`;
        return entry.action === 'replayed' && ids.includes(id) ? id : undefined;
      };
      const [published, audited] = await Promise.all([oursIn(tier, ourValue, RECORDS), oursIn(billing.dlqAudit.name, ourEntry, RECORDS)]);
      expect({ published, audited }).toEqual({ published: Array.from({ length: RECORDS }, (_, i) => `${run}-${i}`).sort(), audited: [...ids].sort() });
    } finally {
      await admin.disconnect();
    }
  });
});
