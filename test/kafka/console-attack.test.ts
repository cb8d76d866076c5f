import type { AddressInfo } from 'node:net';
import type { Admin } from 'kafkajs';
import { csrfToken, sessionCookieHeader } from '../../src/console/auth';
import type { Chooser } from '../../src/console/backend';
import { kafkaConsoleDlq } from '../../src/console/kafka-dlq';
import { selectionChooser } from '../../src/console/selection';
import { buildConsoleServer } from '../../src/console/server';
import { readAuditLog } from '../../src/dlq/audit-log';
import { discardRecords } from '../../src/dlq/replay';
import { DlqSession } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { dlqReaderGroupName } from '../../src/naming';
import { HEADERS } from '../../src/naming/headers';
import { STOP_DEADLINE_MS } from '../../src/cli/serve-until-signal';
import { eventually } from '../helpers/eventually';
import { kafkaAsAdmin } from '../helpers/kafka';
import { scratchConsumer } from '../helpers/scratch-consumer';
import { createTopicsWithLeaders } from '../../scripts/kafka/serving';

jest.setTimeout(300_000);

/**
 * Attacks on `krt console` and the DLQ session (#25) on a real broker. Each `it.failing`
 * states what a user expects and, in its comment, what is seen, the code at fault, the class
 * of bug and the fix.
 */

const TOKEN = 'console-attack-token-0123456789';
const HOST = 'localhost:80';
const cookie = sessionCookieHeader(TOKEN);

/** Dead letters of `errorClass`, `perPartition[p]` of them in partition p. */
async function deadLetters(consumer: ConsumerModel, perPartition: readonly number[], errorClass: string): Promise<void> {
  const producer = kafkaAsAdmin().producer();
  await producer.connect();
  try {
    for (const [partition, count] of perPartition.entries()) {
      if (count === 0) continue;
      const messages = Array.from({ length: count }, (_, i) => ({
        partition,
        key: `order-${partition}-${i}`,
        value: '{"total":1}',
        headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: String(partition), [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: errorClass, [HEADERS.attempt]: '1' },
      }));
      await producer.send({ topic: consumer.dlq.name, acks: -1, messages });
    }
  } finally {
    await producer.disconnect();
  }
}

async function messagesIn(admin: Admin, topic: string): Promise<number> {
  return (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(BigInt(p.high) - BigInt(p.low)), 0);
}

describe('krt console on a real broker: attacks', () => {
  let admin: Admin;
  beforeAll(async () => {
    admin = kafkaAsAdmin().admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
  });

  // Seen: the console counted 5 dead letters of OldError; the DLQ topic is deleted and created
  // again (a Terraform replace, an operator cleaning up) and receives 7 of NewError. The
  // consumer page's counts still say OldError: 5, NewError: 2 and "7 unhandled", with groups and
  // first/last seen of records that no longer exist, and NewError short by 5, until the console
  // restarts (the cache keeps the entry as long as the DLQ grows past the old ends).
  // Code at fault: src/console/summary-cache.ts count() carries a cached tally on whenever the
  // handled version is equal and the ends grew (grewFrom); DlqSession.handledVersion
  // (src/dlq/session.ts) is made of log starts and the replay group's commits only, which a new
  // topic leaves equal (log start 0, no commit) and a topic's identity is in none of them.
  // Class: stale cache (cache key missing the identity of what it caches).
  // Fix: put the topic id (admin.fetchTopicMetadata / DescribeTopics' topicId, or at least the
  // partition count plus the first record's timestamp of each partition) into handledVersion,
  // and count again when it changes; ends that shrink count again already.
  // Fixed: a carried count reads its last counted record again and counts from scratch when
  // another record is there (src/console/log-marks.ts; test/console/summary-cache-recreated-topic.test.ts).
  it('a DLQ topic deleted and created again is counted from scratch, not carried on from the old topic\'s counts', async () => {
    const { model, consumer } = await scratchConsumer({ name: 'recreate', partitions: 1 });
    await deadLetters(consumer, [5], 'OldError');
    const app = buildConsoleServer({ topologies: model.topologies, dlq: kafkaConsoleDlq(kafkaAsAdmin()), token: TOKEN, allowedHosts: new Set([HOST]), readOnlyReason: () => 'a test' });
    const summary = async () => (await app.inject({ method: 'GET', url: `/consumers/${consumer.name}/summary`, headers: { host: HOST, cookie } })).body;
    const unhandled = (body: string) => /id="unhandled">(\d+)</.exec(body)?.[1];
    try {
      const before = await summary();
      expect(unhandled(before)).toBe('5');
      expect(before).toContain('OldError');
      await admin.deleteTopics({ topics: [consumer.dlq.name] });
      await eventually('the DLQ topic created again', async () => {
        try {
          return (await createTopicsWithLeaders(admin, [{ topic: consumer.dlq.name, numPartitions: 1, replicationFactor: 1 }])) ? true : undefined;
        } catch {
          return undefined;
        }
      }, 60_000);
      await deadLetters(consumer, [7], 'NewError');
      const after = await summary();
      expect({ unhandled: unhandled(after), old: after.includes('OldError') }).toEqual({ unhandled: '7', old: false });
    } finally {
      await app.close();
    }
  });

  // Seen: operator ana ticks two dead letters and presses Replay; while her session reads them,
  // operator bob discards the same two from the terminal (`krt dlq discard`), which ends before
  // ana's replay takes the lease. Ana's replay re-reads the handled state, publishes nothing (right),
  // yet her page says "Replayed 2 records to <tier> ..., by ana" and lists them as handled by her
  // action (with "The audit log did not show them yet"): she believes the orders went back to
  // the consumer when they were thrown away.
  // Code at fault: src/console/kafka-dlq.ts replay() returns `chosen` (minus the park-by-key waiters)
  // as handled, ignoring how many replayRecords published (its `replayed` count) and which
  // records session.stillUnhandled dropped in src/dlq/replay.ts inSteps; discard() does the same.
  // The same without any hook: two consoles replaying the same three records at the same moment
  // (a probe of 8 trials) published each record once, but in 7 trials both pages said
  // "Replayed 3 records", each naming its own operator.
  // Class: reporting success for work not done (the action's outcome is its request, not its result).
  // Fix: have inSteps return the records it handled (and those found handled by someone else),
  // and the job show "already handled by another command: ..." for the rest.
  // Fixed: replayRecords and discardRecords return the records they handled, and the outcome lists only those.
  it('an action lists as replayed only the records it replayed, not those another operator discarded meanwhile', async () => {
    const { consumer } = await scratchConsumer({ name: 'twoops', partitions: 2 });
    await deadLetters(consumer, [1, 1], 'DownstreamTimeout');
    const kafka = kafkaAsAdmin();
    const seen = await DlqSession.open(kafka, consumer);
    const records = seen.records;
    await seen.close();
    expect(records.map((r) => r.id)).toEqual(['0:0', '1:0']);
    let bobDone = false;
    const chooser: Chooser = {
      keep: () => true,
      scope: {
        // After ana's session read the first partition, bob's discard runs to its end.
        drain: async () => {
          if (bobDone) return;
          bobDone = true;
          const bob = await DlqSession.open(kafka, consumer, 60_000, () => true, { from: () => undefined });
          try {
            await discardRecords(kafka, bob, records, { reason: 'bad data', by: 'bob' });
          } finally {
            await bob.close();
          }
        },
      },
      choose: (snapshot) => snapshot.records.filter((r) => ['0:0', '1:0'].includes(r.id)),
    };
    const dlq = kafkaConsoleDlq(kafka);
    try {
      const outcome = await dlq.replay(consumer, chooser, { rate: 100, by: 'ana', onProgress: () => undefined });
      expect(bobDone).toBe(true);
      // Nothing reached the tier: bob's discard came first.
      expect(await messagesIn(admin, consumer.tiers[0]!.name)).toBe(0);
      expect(outcome.handled).toEqual([]);
    } finally {
      await dlq.close?.();
    }
  });

  // Seen: a replay of 20 records at 1 record/s runs; the operator presses Ctrl-C (or systemd sends
  // SIGTERM). app.close() waits for the whole replay (Jobs.settled polls until it ends), so
  // `krt console` reaches its 10 s deadline, says it did not stop, and process.exit(1) ends it
  // wherever the replay is: between a step's publish and its audit entry (records published
  // with no audit entry and not committed, which the next replay publishes again), and with the
  // replay group's committing member not left, so every `krt dlq replay`/`discard` of the
  // consumer is refused as "another krt dlq command is replaying" until the broker's session
  // timeout expires.
  // Code at fault: src/console/jobs.ts Jobs.settled() and the onClose hook of src/console/server.ts
  // have no way to stop an action: ConsoleDlq.replay/discard take no abort signal, and
  // src/dlq/replay.ts inSteps never checks one between steps.
  // Class: shutdown that cannot cancel (a graceful stop becomes a kill mid-transaction).
  // Fix: give each job an AbortController; close() aborts it; inSteps checks the signal before
  // each step (after commit, never between publish and commit), releases the lease and ends;
  // the job reports the records it handled. Then close() ends well within the deadline.
  // Fixed: Jobs.stop() aborts each action's signal, and inSteps ends at the next step boundary
  // (test/runtime/dlq-action-stops-at-step-boundary.test.ts); `krt dlq replay` and `discard` too, at Ctrl-C.
  it('closing the console during a long replay ends the replay at a step boundary, within the stop deadline', async () => {
    const { model, consumer } = await scratchConsumer({ name: 'stopping', partitions: 1 });
    await deadLetters(consumer, [20], 'DownstreamTimeout');
    const app = buildConsoleServer({ topologies: model.topologies, dlq: kafkaConsoleDlq(kafkaAsAdmin()), token: TOKEN, allowedHosts: new Set([HOST]), readOnlyReason: () => undefined });
    const ids = Array.from({ length: 20 }, (_, i) => `0:${i}`).join(',');
    const started = await app.inject({
      method: 'POST',
      url: `/consumers/${consumer.name}/replay`,
      headers: { host: HOST, cookie, 'content-type': 'application/x-www-form-urlencoded', 'hx-request': 'true' },
      payload: new URLSearchParams({ csrf: csrfToken(TOKEN), scope: 'ids', ids, by: 'ana', rate: '1' }).toString(),
    });
    expect(started.body).toContain('Replaying');
    await eventually('the replay publishes', async () => ((await messagesIn(admin, consumer.tiers[0]!.name)) > 0 ? true : undefined), 60_000);
    const signalled = Date.now();
    const closing = app.close();
    const outcome = await Promise.race([closing.then(() => 'closed' as const), new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), STOP_DEADLINE_MS))]);
    const tookMs = Date.now() - signalled;
    // Let the replay end before the test does, whatever it took.
    await closing;
    const replayGroup = (await admin.describeGroups([consumer.groups.replay])).groups[0];
    expect({ outcome, members: replayGroup?.members.length ?? 0 }).toEqual({ outcome: 'closed', members: 0 });
    expect(tookMs).toBeLessThan(STOP_DEADLINE_MS);
  });
  // Seen: while a replay runs (20 records at 1 record/s here; 10,000 at the default 10/s is 17
  // minutes), the consumer's audit log page does not answer: the operator who opens it to watch
  // the entries the replay writes gets no page until the whole replay ended (a browser or proxy
  // gives up first). The replay's own result page, which reads the audit log the same way after
  // the action, is unaffected; the overview and the DLQ pages answer at once.
  // Code at fault: src/console/kafka-dlq.ts auditLog() runs through oneAtATime(consumer, ...), the
  // queue that serializes replays and discards, though reading the audit log changes no state
  // (the comment says "between sessions", and it waits for whole actions).
  // Class: read path blocked behind a long write (head-of-line blocking).
  // Fix: read the audit log outside the action queue (it commits nothing), as read() does.
  // Fixed: auditLog reads outside the action queue (src/console/kafka-dlq.ts).
  it('the audit log page answers while a replay of the same consumer runs', async () => {
    const { model, consumer } = await scratchConsumer({ name: 'auditwait', partitions: 1 });
    await deadLetters(consumer, [20], 'DownstreamTimeout');
    const app = buildConsoleServer({ topologies: model.topologies, dlq: kafkaConsoleDlq(kafkaAsAdmin()), token: TOKEN, allowedHosts: new Set([HOST]), readOnlyReason: () => undefined });
    try {
      const ids = Array.from({ length: 20 }, (_, i) => `0:${i}`).join(',');
      await app.inject({
        method: 'POST',
        url: `/consumers/${consumer.name}/replay`,
        headers: { host: HOST, cookie, 'content-type': 'application/x-www-form-urlencoded', 'hx-request': 'true' },
        payload: new URLSearchParams({ csrf: csrfToken(TOKEN), scope: 'ids', ids, by: 'ana', rate: '1' }).toString(),
      });
      await eventually('the replay publishes', async () => ((await messagesIn(admin, consumer.tiers[0]!.name)) > 0 ? true : undefined), 60_000);
      const asked = Date.now();
      const page = app.inject({ method: 'GET', url: `/consumers/${consumer.name}/audit`, headers: { host: HOST, cookie } });
      const outcome = await Promise.race([page.then((r) => r.statusCode), new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 5_000))]);
      const tookMs = Date.now() - asked;
      await page;
      expect({ outcome, within5s: tookMs < 5_000 }).toEqual({ outcome: 200, within5s: true });
    } finally {
      await app.close();
    }
  });
  // Found by the attack: a dead letter whose x-error-class header is 600 KB of `"` reached the
  // tier on replay, then its audit entry (1.2 MB JSON-escaped) was refused by the broker: the
  // record unaudited, unhandled, and published again by every try. Fixed (1a99e33): an entry
  // copies at most 1,024 characters of a header, and a step's entries are built and fitted
  // before anything of it is published (test/runtime/dlq-audit-bounded.test.ts).
  it('a record whose error name is huge is either replayed with its audit entry or not replayed at all', async () => {
    const { consumer } = await scratchConsumer({ name: 'hugeaudit', partitions: 1 });
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({
      topic: consumer.dlq.name,
      acks: -1,
      messages: [{ partition: 0, key: 'order-1', value: '{}', headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: '1', [HEADERS.errorClass]: '"'.repeat(600_000), [HEADERS.attempt]: '1' } }],
    });
    await producer.disconnect();
    const dlq = kafkaConsoleDlq(kafkaAsAdmin());
    const tries: string[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        try {
          await dlq.replay(consumer, selectionChooser({ scope: 'ids', ids: ['0:0'] }), { rate: 10, by: 'ana', onProgress: () => undefined });
          tries.push('replayed');
        } catch (error) {
          tries.push(`failed: ${(error as Error).message.slice(0, 80)}`);
        }
      }
    } finally {
      await dlq.close?.();
    }
    const published = await messagesIn(admin, consumer.tiers[0]!.name);
    // The entries naming a record (each step also writes its partition's `handled-below` floor).
    const audited = (await readAuditLog(kafkaAsAdmin(), consumer, `${consumer.name}.audit-check`, 100)).filter((e) => e.action === 'replayed').length;
    // Every record that reached the tier has its audit entry, and none reached it twice.
    expect({ tries: tries.length, published, audited: audited === published, once: published <= 1 }).toEqual({ tries: 2, published, audited: true, once: true });
  });
  // Seen: the operator's browser asks for a consumer's counts (a read of some seconds) and the
  // console gets SIGINT meanwhile: the count ends and its answer is sent, but app.close() then
  // waits for that connection, idle and kept alive, to reach Fastify's keepAliveTimeout (72 s):
  // `krt console` misses its 10 s deadline, prints "did not stop within 10 s" and exits 1; the
  // onClose hook that leaves the reader groups (dlq.close) runs only after the server closed, so
  // the process exits with every lingering reader member still in its group, and the next
  // `krt dlq inspect` waits for the broker's session timeout in its join. (A probe of a count of
  // 200,000 records: close took 101 s.) The htmx progress poll of a running action (every
  // 700 ms) makes a request in flight at the signal likely.
  // Code at fault: src/console/server.ts buildConsoleServer creates Fastify with the default
  // forceCloseConnections ('idle': only connections idle at close() are closed) and
  // keepAliveTimeout (72 s), and its onClose hook, which leaves the groups, is ordered after the
  // server's close.
  // Class: graceful shutdown blocked by keep-alive connections.
  // Fix: Fastify({ forceCloseConnections: true }) or reply with `Connection: close` once closing
  // (a preClose hook that sets a flag and an onSend hook that sets the header), a short
  // keepAliveTimeout, and leave the reader groups in a preClose hook, before the server's close.
  // Half fixed: the server drops its connections on close (forceCloseConnections), so a kept-alive
  // browser connection no longer holds the stop: it closes within the deadline. Still seen: the
  // reader member of the count in flight is in the group when close returns, since
  // lingeringReaders.close() leaves idle members only (src/dlq/reader-pool.ts).
  // Fixed: close() leaves with every member, idle or serving a read, and the read ends with an error.
  it('stopped while a count is answered, the console closes within the stop deadline and leaves its reader group', async () => {
    const { model, consumer } = await scratchConsumer({ name: 'stopcount', partitions: 1 });
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    for (let from = 0; from < 40_000; from += 5000) {
      await producer.send({ topic: consumer.dlq.name, acks: -1, messages: Array.from({ length: 5000 }, (_, i) => ({ partition: 0, key: `k${from + i}`, value: 'v'.repeat(100), headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.errorClass]: 'E' } })) });
    }
    await producer.disconnect();
    const hosts = new Set<string>();
    const app = buildConsoleServer({ topologies: model.topologies, dlq: kafkaConsoleDlq(kafkaAsAdmin()), token: TOKEN, allowedHosts: hosts, readOnlyReason: () => 'a test' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    hosts.add(`127.0.0.1:${(app.server.address() as AddressInfo).port}`);
    // A browser's request over a kept-alive connection.
    // The stop may cut this answer (the console is going away); it must not wait for it.
    const answered = fetch(`http://${[...hosts][0]}/consumers/${consumer.name}/summary`, { headers: { cookie } }).then((r) => r.text(), () => undefined);
    await eventually('the count reads', async () => ((await admin.describeGroups([dlqReaderGroupName(consumer.groups.replay)])).groups[0]?.members.length ? true : undefined));
    const signalled = Date.now();
    const closing = app.close();
    const outcome = await Promise.race([closing.then(() => 'closed' as const), new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), STOP_DEADLINE_MS))]);
    const members = (await admin.describeGroups([dlqReaderGroupName(consumer.groups.replay)])).groups[0]?.members.length ?? 0;
    const tookMs = Date.now() - signalled;
    await answered;
    await closing;
    expect({ outcome, members }).toEqual({ outcome: 'closed', members: 0 });
    expect(tookMs).toBeLessThan(STOP_DEADLINE_MS);
  });
});
