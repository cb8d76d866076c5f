/**
 * Review h140: readAuditLog (src/dlq/audit-log.ts), the whole-log read of the DLQ sessions'
 * fallback (opening-states.ts) and the console's audit page, reads in the DLQ reader group
 * (`{replay}.dlq-read`) without the two fixes its sibling, the monitor's read
 * (kafkajs-monitor.ts), got this morning:
 *
 * 1. A rejoin mid-read (a console's DLQ reader or another krt dlq command joining or leaving
 *    the group) seeks every partition back to where the read STARTED: every entry read so far
 *    is handed again and pushed twice. Seen (fake below, 120 entries, a rejoin after the first
 *    batch of 40): 160 entries, 0:0..0:39 twice. The console's audit page (limit 50) shows
 *    entries twice and leaves older ones out of view; a year-long read of the fallback starts
 *    over at every member coming or going (with members churning faster than it reads, a
 *    session open is refused by its stall timer). Class: rejoin mid-read re-reads; the
 *    monitor's read seeks where each partition got to.
 *    Fixed: each partition's next offset is kept, sought on GROUP_JOIN, offsets below it skipped.
 *
 * 2. A join the broker refuses (the principal may not use the reader group:
 *    GROUP_AUTHORIZATION_FAILED) crashes kafkajs's runner after run() resolved; nothing listens
 *    to CRASH, so the read waits out its stall timer (60 s at a session open, 30 s in the
 *    console) and then says "could not read ... any further", hiding the refusal. Class: the
 *    one h139 fixed in DlqSession.member(). Fixed: rejects on CRASH with restart false.
 */
import type { Kafka } from 'kafkajs';
import { readAuditLog } from '../../src/dlq/audit-log';
import type { ConsumerModel } from '../../src/model/types';
import { aConsumer, aTopology, compile } from '../helpers/specs';

function consumerModel(): ConsumerModel {
  return compile(aTopology({ consumers: [aConsumer({ ladder: ['1m'] })] })).model!.topologies[0]!.consumers[0]!;
}

/**
 * An audit topic of one partition of `count` entries, fetched `perBatch` at a time; after batch
 * `rejoinAfter` the group rebalances (GROUP_JOIN again, as kafkajs emits on each rejoin) and
 * the fetch goes on from where the listeners sought (the log start when none did).
 */
function auditLog(count: number, perBatch: number, options: { rejoinAfter?: number; refuse?: boolean } = {}): Kafka {
  const entry = (offset: number) => ({ offset: String(offset), key: Buffer.from(`0:${offset}`), value: Buffer.from(JSON.stringify({ action: 'replayed', at: new Date(offset).toISOString() })) });
  return {
    admin: () => ({ connect: async () => {}, disconnect: async () => {}, fetchTopicOffsets: async () => [{ partition: 0, offset: String(count), low: '0', high: String(count) }] }),
    consumer: () => {
      const listeners = new Map<string, ((e: unknown) => void)[]>();
      let running = true;
      let position = 0;
      const emit = (event: string, payload: unknown) => (listeners.get(event) ?? []).forEach((l) => l(payload));
      return {
        connect: async () => {},
        subscribe: async () => {},
        disconnect: async () => void (running = false),
        stop: async () => void (running = false),
        on: (event: string, listener: (e: unknown) => void) => void listeners.set(event, [...(listeners.get(event) ?? []), listener]),
        events: { GROUP_JOIN: 'join', CRASH: 'crash' },
        seek: ({ offset }: { offset: string }) => void (position = Number(offset)),
        pause: () => {},
        run: async ({ eachBatch }: { eachBatch: (p: { batch: unknown }) => Promise<void> }) => {
          if (options.refuse) {
            const refused = Object.assign(new Error('Not authorized to access group: Group authorization failed'), { type: 'GROUP_AUTHORIZATION_FAILED', retriable: false });
            setTimeout(() => emit('crash', { payload: { error: refused, restart: false } }), 10);
            return;
          }
          position = 0;
          emit('join', { payload: {} });
          void (async () => {
            let batches = 0;
            while (running && position < count) {
              await new Promise((resolve) => setTimeout(resolve, 5));
              const messages = Array.from({ length: Math.min(perBatch, count - position) }, (_, i) => entry(position + i));
              position += messages.length;
              await eachBatch({ batch: { topic: 'audit', partition: 0, messages } });
              if (++batches === options.rejoinAfter) {
                position = 0;
                emit('join', { payload: {} });
              }
            }
          })();
        },
      };
    },
  } as unknown as Kafka;
}

describe('the audit log read in the DLQ reader group (review h140)', () => {
  it('hands each entry once through a rejoin mid-read', async () => {
    const entries = await readAuditLog(auditLog(120, 40, { rejoinAfter: 1 }), consumerModel(), 'readers', Number.MAX_SAFE_INTEGER, 2_000);
    expect(entries.map((e) => e.offset).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 120 }, (_, i) => String(i)));
  });

  it('ends at once, saying why, when the broker refuses the join', async () => {
    const started = Date.now();
    const outcome = await readAuditLog(auditLog(120, 40, { refuse: true }), consumerModel(), 'readers', Number.MAX_SAFE_INTEGER, 3_000).then(
      () => 'read',
      (error: Error) => error.message,
    );
    expect({ fast: Date.now() - started < 1_500, outcome }).toEqual({ fast: true, outcome: expect.stringMatching(/authori[sz]/i) });
  }, 10_000);
});
