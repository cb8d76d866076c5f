import path from 'node:path';
import type { Admin } from 'kafkajs';
import { sessionCookieHeader } from '../../src/console/auth';
import { kafkaConsoleDlq } from '../../src/console/kafka-dlq';
import { buildConsoleServer } from '../../src/console/server';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { dlqReaderGroupName } from '../../src/naming';
import { HEADERS } from '../../src/naming/headers';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import { STOP_DEADLINE_MS } from '../../src/cli/serve-until-signal';
import { exitWithin, spawnChild } from '../helpers/child-process';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, kafkaAsAdmin } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';
import { scratchConsumer } from '../helpers/scratch-consumer';

jest.setTimeout(300_000);

const TOKEN = 'console-reader-token-0123456789';
const HOST = 'localhost:80';

/**
 * The console's reads of the DLQ on a real broker: they share members of the reader group
 * that stay between pages, instead of joining an empty group (and waiting out the broker's
 * group.initial.rebalance.delay.ms, 3 s by default; the test broker sets 0) on each page.
 * A fresh consumer and topics per test, as the admin.
 */
function project(): ReturnType<typeof scratchConsumer> {
  return scratchConsumer({ name: 'reader', partitions: 3 });
}

/** `count` dead letters in each partition, of `bytes` each. */
async function fillDlq(consumer: ConsumerModel, perPartition: readonly number[], bytes = 200): Promise<string[]> {
  const producer = kafkaAsAdmin().producer();
  await producer.connect();
  const ids: string[] = [];
  for (const [partition, count] of perPartition.entries()) {
    for (let from = 0; from < count; from += 200) {
      const messages = Array.from({ length: Math.min(200, count - from) }, (_, i) => ({
        partition,
        key: `order-${partition}-${from + i}`,
        value: 'x'.repeat(bytes),
        headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(partition), [HEADERS.originalOffset]: String(from + i), [HEADERS.errorClass]: 'DownstreamTimeout', [HEADERS.attempt]: '1' },
      }));
      await producer.send({ topic: consumer.dlq.name, acks: -1, messages });
      ids.push(...messages.map((_, i) => `${partition}:${from + i}`));
    }
  }
  await producer.disconnect();
  return ids;
}

async function readerGroup(admin: Admin, consumer: ConsumerModel): Promise<{ state: string; members: string[] }> {
  const [group] = (await admin.describeGroups([dlqReaderGroupName(consumer.groups.replay)])).groups;
  return { state: group?.state ?? 'Dead', members: (group?.members ?? []).map((m) => m.memberId).sort() };
}

describe('krt console reads the DLQ through reader-group members that stay between pages', () => {
  let admin: Admin;
  beforeAll(async () => {
    admin = kafkaAsAdmin().admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  it('page after page, the reader group keeps the member the first page joined with, and a closed console leaves it', async () => {
    const { model, consumer } = await project();
    await fillDlq(consumer, [40, 40, 40]);
    const app = buildConsoleServer({ topologies: model.topologies, dlq: kafkaConsoleDlq(kafkaAsAdmin()), token: TOKEN, allowedHosts: new Set([HOST]), readOnlyReason: () => 'a test' });
    const load = async (url: string) => (await app.inject({ method: 'GET', url, headers: { host: HOST, cookie: sessionCookieHeader(TOKEN) } })).statusCode;
    const pageLoad = async (after: string) => [await load(`/consumers/${consumer.name}${after}`), await load(`/consumers/${consumer.name}/summary${after}`)];
    const loads = [await pageLoad('')];
    const first = await readerGroup(admin, consumer);
    const after: { state: string; members: string[] }[] = [];
    for (const cursor of ['?after=0:39', '', '?after=1:10', '', '?after=2:0']) {
      loads.push(await pageLoad(cursor));
      after.push(await readerGroup(admin, consumer));
    }
    await app.close();
    const closed = await readerGroup(admin, consumer);
    expect({ loads: loads.flat().every((status) => status === 200), first: first.members.length, after, closed: closed.members }).toEqual({
      loads: true,
      first: 1,
      after: after.map(() => first),
      closed: [],
    });
  });

  it('a page read while krt dlq inspect joins and leaves lists every record once, and so does the inspect', async () => {
    const { consumer } = await project();
    // Two megabytes in partition 0: its read takes several fetches, so the group rebalances in the middle of it.
    const all = await fillDlq(consumer, [1_000, 20, 20], 2_000);
    const dlq = kafkaConsoleDlq(kafkaAsAdmin());
    try {
      // The page before: the console's member is in the group, idle, when the next page starts.
      await dlq.read(consumer, () => false, () => undefined);
      let inspect: Promise<DlqSession> | undefined;
      let rebalanced: { state: string; members: string[] } | undefined;
      const listed: string[] = [];
      await dlq.read(
        consumer,
        (record) => (listed.push(record.id), false),
        () => undefined,
        {
          drain: async () => {
            if (inspect) return;
            // `krt dlq inspect` from a terminal: a member of its own joins the group, reads, and leaves.
            inspect = DlqSession.open(kafkaAsAdmin(), consumer, 120_000);
            // The page's member learns of the rebalance once this batch is done: the rest of its read comes after a rejoin.
            rebalanced = await eventually('the group rebalances for the inspect', async () => {
              const group = await readerGroup(admin, consumer);
              return group.state === 'PreparingRebalance' || group.state === 'CompletingRebalance' ? group : undefined;
            });
          },
        },
      );
      const inspected = await inspect!;
      await inspected.close();
      expect({ rebalanced: rebalanced !== undefined, page: [...listed].sort(), inspect: inspected.records.map((r) => r.id).sort() }).toEqual({ rebalanced: true, page: [...all].sort(), inspect: [...all].sort() });
    } finally {
      await dlq.close?.();
    }
  });

  it('the audit log reads in the reader group while the member of a page stays there, reading another topic', async () => {
    const { consumer } = await project();
    await fillDlq(consumer, [3, 3, 3]);
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({ topic: consumer.dlqAudit.name, acks: -1, messages: [{ key: '0:1', value: JSON.stringify({ action: 'discard', by: 'ana', at: new Date().toISOString(), reason: 'a test' }) }] });
    await producer.disconnect();
    const dlq = kafkaConsoleDlq(kafkaAsAdmin());
    try {
      await dlq.read(consumer, () => false, () => undefined);
      const entries = await dlq.auditLog(consumer, 10);
      const group = await readerGroup(admin, consumer);
      expect({ audit: entries.map((e) => `${e.key} ${e.action} by ${e.by}`), membersAfter: group.members.length }).toEqual({ audit: ['0:1 discard by ana'], membersAfter: 1 });
    } finally {
      await dlq.close?.();
    }
  });

  it('warmed as the console starts, a consumer\'s reader group has its member before any page, and the first page reads with it', async () => {
    const { consumer } = await project();
    await fillDlq(consumer, [3, 3, 3]);
    const dlq = kafkaConsoleDlq(kafkaAsAdmin());
    try {
      dlq.warm?.([consumer]);
      const warmed = await eventually('the warmed member joins', async () => {
        const group = await readerGroup(admin, consumer);
        return group.state === 'Stable' && group.members.length === 1 ? group : undefined;
      });
      const listed: string[] = [];
      await dlq.read(consumer, (record) => (listed.push(record.id), false), () => undefined);
      const afterPage = await readerGroup(admin, consumer);
      expect({ listed: listed.length, members: afterPage.members }).toEqual({ listed: 9, members: warmed.members });
    } finally {
      await dlq.close?.();
    }
  });

  it('closed the moment it warmed (a SIGTERM as the console starts), no member of the reader group joins afterwards', async () => {
    const { consumer } = await project();
    const dlq = kafkaConsoleDlq(kafkaAsAdmin());
    dlq.warm?.([consumer]);
    await dlq.close?.();
    // A member whose connect was under way when close() came would join once it connected, and keep the process alive.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const group = await readerGroup(admin, consumer);
    expect({ state: group.state, members: group.members.length }).toEqual({ state: expect.stringMatching(/^(Empty|Dead)$/), members: 0 });
  });

  it('krt console told to stop (SIGTERM) the moment it printed its URL leaves its reader group and exits', async () => {
    const { consumer, dir } = await project();
    const console_ = spawnChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'console', '--port', '0'], {
      cwd: dir,
      env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: ADMIN_USER, KAFKA_SASL_PASSWORD: passwordOf(ADMIN_USER), KAFKA_SSL: 'false' },
    });
    await eventually('the console URL', () => {
      console_.assertRunning('krt console');
      return /token=/.test(console_.stdout()) ? true : undefined;
    });
    const signalled = Date.now();
    console_.process.kill('SIGTERM');
    const exit = await exitWithin(console_, 20_000);
    const group = await readerGroup(admin, consumer);
    expect({ exit, stopped: /krt console: stopped/.test(console_.stdout()), members: group.members.length }).toEqual({ exit: { code: 0, signal: null }, stopped: true, members: 0 });
    expect(Date.now() - signalled).toBeLessThan(STOP_DEADLINE_MS);
  });

  it('a reader no page needed for the idle time leaves the group', async () => {
    const { consumer } = await project();
    await fillDlq(consumer, [3, 3, 3]);
    const dlq = kafkaConsoleDlq(kafkaAsAdmin(), { readerIdleMs: 1_000 });
    try {
      await dlq.read(consumer, () => false, () => undefined);
      const during = await readerGroup(admin, consumer);
      const left = await eventually('the idle reader leaves', async () => {
        const group = await readerGroup(admin, consumer);
        return group.members.length === 0 ? group : undefined;
      });
      expect({ during: during.members.length, left: left.state }).toEqual({ during: 1, left: 'Empty' });
    } finally {
      await dlq.close?.();
    }
  });
});
