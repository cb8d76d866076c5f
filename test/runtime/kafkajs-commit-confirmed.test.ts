import { EventEmitter } from 'node:events';
import { KafkaJSConnectionError, KafkaJSProtocolError } from 'kafkajs';
import { CLIENT_STOPPED, markWorthWaitingOut, worthWaitingOut } from '../../src/runtime/commit-patience';
import { confirmedCommits } from '../../src/runtime/adapters/kafkajs-commit';
import type { CommitOffsetsPayload } from '../../src/runtime/adapters/kafkajs-commit';
import type { OffsetCommit } from '../../src/runtime/port';

/**
 * #28 finding 2, seen on the broker: kafkajs's commitOffsets() resolves without committing
 * when its runner is not running (a crash, or a commit retried through an outage that fails
 * after the runner stopped). These stand-ins do what kafkajs does: a commit the coordinator
 * accepted is reported by a COMMIT_OFFSETS event, one never sent resolves all the same.
 */
function kafkajsConsumer(behaviour: 'commits' | 'not running' | 'commits some' | 'reports older offsets' | Error) {
  const events = new EventEmitter();
  const stored: OffsetCommit[] = [];
  return {
    stored,
    consumer: {
      events: { COMMIT_OFFSETS: 'consumer.commit_offsets' },
      on: (event: string, listener: (e: { payload: CommitOffsetsPayload }) => void) => events.on(event, listener),
      commitOffsets: async (offsets: OffsetCommit[]) => {
        if (behaviour instanceof Error) throw behaviour;
        if (behaviour === 'not running') return;
        const sent = behaviour === 'commits some' ? offsets.slice(0, 1) : behaviour === 'reports older offsets' ? offsets.map((o) => ({ ...o, offset: String(Number(o.offset) - 1) })) : offsets;
        stored.push(...sent);
        // kafkajs's payload carries offsets as its Long: a string only through toString().
        const topics = [...new Set(sent.map((o) => o.topic))].map((topic) => ({ topic, partitions: sent.filter((o) => o.topic === topic).map((o) => ({ partition: o.partition, offset: { toString: () => o.offset } })) }));
        events.emit('consumer.commit_offsets', { payload: { topics } });
      },
    },
  };
}

const offsets: OffsetCommit[] = [
  { topic: 'orders', partition: 0, offset: '535' },
  { topic: 'orders', partition: 5, offset: '452' },
];

describe('a kafkajs commit is done only when kafkajs reports the coordinator answered', () => {
  it('resolves when kafkajs reports every partition committed at the offset asked for', async () => {
    const kafkajs = kafkajsConsumer('commits');
    await expect(confirmedCommits(kafkajs.consumer)(offsets)).resolves.toBeUndefined();
    expect(kafkajs.stored).toEqual(offsets);
  });

  it('refuses a commit kafkajs answered without sending (its consumer not running), so the committer sends it again', async () => {
    const kafkajs = kafkajsConsumer('not running');
    await expect(confirmedCommits(kafkajs.consumer)(offsets)).rejects.toThrow(/kafkajs did not commit orders-0 at offset 535, orders-5 at offset 452: its consumer was not running/);
  });

  it('refuses a commit of which kafkajs reports only some partitions, naming the others', async () => {
    const kafkajs = kafkajsConsumer('commits some');
    await expect(confirmedCommits(kafkajs.consumer)(offsets)).rejects.toThrow(/did not commit orders-5 at offset 452:/);
  });

  it('does not take a report of the same partitions at other offsets for this commit', async () => {
    const kafkajs = kafkajsConsumer('reports older offsets');
    await expect(confirmedCommits(kafkajs.consumer)(offsets)).rejects.toThrow(/did not commit orders-0 at offset 535, orders-5 at offset 452:/);
  });
});

describe('which of kafkajs\u2019s commit refusals the adapter marks worth waiting out (commit-patience.ts)', () => {
  const refusal = async (behaviour: Parameters<typeof kafkajsConsumer>[0]) => confirmedCommits(kafkajsConsumer(behaviour).consumer)(offsets).then(() => undefined, (error: unknown) => error);

  it('a coordinator loading its offsets, or a connection that failed: marked', async () => {
    expect(worthWaitingOut(await refusal(new KafkaJSProtocolError({ message: 'loading', type: 'GROUP_LOAD_IN_PROGRESS', code: 14, retriable: true } as unknown as string)))).toBe(true);
    expect(worthWaitingOut(await refusal(new KafkaJSConnectionError('Connection error')))).toBe(true);
  });

  it('a coordinator that moved (kafkajs finds it only by a rejoin): not marked, and the error is the client\u2019s own', async () => {
    const moved = new KafkaJSProtocolError({ message: 'moved', type: 'NOT_COORDINATOR_FOR_GROUP', code: 16, retriable: true } as unknown as string);
    const error = await refusal(moved);
    expect(error).toBe(moved);
    expect(worthWaitingOut(error)).toBe(false);
  });

  it('a commit answered while its consumer was not running: typed as a stopped client, never waited out', async () => {
    const error = await refusal('not running');
    expect(error).toMatchObject({ type: CLIENT_STOPPED });
    expect(worthWaitingOut(markWorthWaitingOut(error))).toBe(false);
  });
});
