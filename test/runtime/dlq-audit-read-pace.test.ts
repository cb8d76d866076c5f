import type { Kafka } from 'kafkajs';
import { readAuditLog } from '../../src/dlq/audit-log';
import type { ConsumerModel } from '../../src/model/types';
import { aConsumer, aTopology, compile } from '../helpers/specs';

/**
 * The audit log read whole (the handled-state fallback reads it at every open while a DLQ
 * partition has no commit in the replay group): a log of a year of replays takes longer to read
 * than the session's timeout. If that timeout bounded the whole read, every open would fail,
 * no replay or discard could write the state back to the group, and the DLQ tools would be
 * refused for as long as the audit log keeps its entries (a year).
 */
function consumerModel(): ConsumerModel {
  return compile(aTopology({ consumers: [aConsumer({ ladder: ['1m'] })] })).model!.topologies[0]!.consumers[0]!;
}

/** An audit topic of one partition of `count` entries, fetched `perBatch` at a time, each batch `ms` after the one before. */
function slowAuditLog(count: number, perBatch: number, ms: number): Kafka {
  const entry = (offset: number) => ({ offset: String(offset), key: Buffer.from(`0:${offset}`), value: Buffer.from(JSON.stringify({ action: 'replayed', at: new Date(offset).toISOString() })) });
  return {
    admin: () => ({ connect: async () => {}, disconnect: async () => {}, fetchTopicOffsets: async () => [{ partition: 0, offset: String(count), low: '0', high: String(count) }] }),
    consumer: () => {
      const listeners = new Map<string, (() => void)[]>();
      let running = true;
      let position = 0;
      return {
        connect: async () => {},
        subscribe: async () => {},
        disconnect: async () => void (running = false),
        on: (event: string, listener: () => void) => void listeners.set(event, [...(listeners.get(event) ?? []), listener]),
        events: { GROUP_JOIN: 'join' },
        seek: ({ offset }: { offset: string }) => void (position = Number(offset)),
        run: async ({ eachBatch }: { eachBatch: (p: { batch: unknown }) => Promise<void> }) => {
          for (const l of listeners.get('join') ?? []) l();
          void (async () => {
            while (running && position < count) {
              await new Promise((resolve) => setTimeout(resolve, ms));
              const messages = Array.from({ length: Math.min(perBatch, count - position) }, (_, i) => entry(position + i));
              position += messages.length;
              await eachBatch({ batch: { topic: 'audit', partition: 0, messages } });
            }
          })();
        },
      };
    },
  } as unknown as Kafka;
}

describe('reading the whole DLQ audit log', () => {
  // Seen before the fix: refused ("could not read ... to its end within 0.2s") although every
  // batch came within 40 ms: the timeout bounded the whole read, not a stall.
  it('reads a log that takes longer than the timeout, as long as it keeps coming', async () => {
    const entries = await readAuditLog(slowAuditLog(400, 40, 40), consumerModel(), 'readers', Number.MAX_SAFE_INTEGER, 200);
    expect(entries).toHaveLength(400);
  });

  it('still gives up on a read that stops coming for the timeout', async () => {
    await expect(readAuditLog(slowAuditLog(400, 40, 400), consumerModel(), 'readers', Number.MAX_SAFE_INTEGER, 200)).rejects.toThrow(/could not read/);
  });
});
