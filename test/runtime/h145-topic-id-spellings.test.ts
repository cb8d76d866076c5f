import { handledFromAuditLog } from '../../src/runtime/dlq-handled-from-audit';
import { isHandled } from '../../src/runtime/dlq-handled';
import { topicIdIn } from '../../src/runtime/topic-id';

/**
 * h145 review: one topic id has two spellings. Kafka's tools and its Java clients print a
 * Uuid in URL-safe base64 without padding (`-` and `_`); librdkafka (the Confluent client,
 * what krt reads ids through) encodes it in standard base64 (`+` and `/`). About half of all
 * ids hold one of those characters. A reader of the other spelling (a MonitorPort of one's
 * own, a later client) compared by string took every entry of this log for another log's:
 * all left out, with every entry written before the last of them, and the DLQ alerts paged
 * on records long handled. Ids are compared in Kafka's spelling.
 */
const DLQ = 'orders.dlq';
// One Uuid's 16 bytes, in both spellings.
const bytes = Buffer.from('fbff3e0f8a1c4d9ab7e6f0ffbf3e2c11', 'hex');
const standard = bytes.toString('base64').replace(/=+$/, '');
const urlSafe = bytes.toString('base64url');

describe('a topic id in the other base64 spelling', () => {
  it('is the same id', () => {
    expect(standard).not.toBe(urlSafe);
    expect(topicIdIn({ topics: [{ name: DLQ, topicId: standard } as { name: string }] }, DLQ)).toBe(topicIdIn({ topics: [{ name: DLQ, topicId: urlSafe } as { name: string }] }, DLQ));
    expect(topicIdIn({ topics: [{ name: DLQ, topicId: `${standard}==` } as { name: string }] }, DLQ)).toBe(topicIdIn({ topics: [{ name: DLQ, topicId: urlSafe } as { name: string }] }, DLQ));
  });

  it('names this log in the fold: its entries are taken', () => {
    const entries = [0, 1, 2].map((o) => ({ fields: { dlqTopic: DLQ, partition: 0, action: 'replayed', offset: String(o), at: '2026-01-01T00:00:00.000Z', dlqTopicId: standard } }));
    const state = handledFromAuditLog(entries, DLQ, [0], new Map([[0, 10n]]), { starts: new Map([[0, 0n]]), topicId: urlSafe }).get(0)!;
    expect([0n, 1n, 2n].map((o) => isHandled(state, o))).toEqual([true, true, true]);
  });
});
