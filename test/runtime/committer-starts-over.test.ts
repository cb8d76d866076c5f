import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import type { OffsetCommit } from '../../src/runtime/port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * A partition whose log started over (its topic deleted and created again): the committer
 * forgets the old log, so the new log's commits below the old log's offsets go out, and an
 * answer about the old log that arrives late does not make the new one look old again.
 */
function setup() {
  const clock = new VirtualClock(0);
  const broker = new MemoryBroker(clock);
  broker.createTopic('t', 1);
  const consumer = broker.port().consumer('g');
  const requests: OffsetCommit[][] = [];
  let answer: (() => void) | undefined;
  let holdNext = false;
  const port = {
    ...consumer,
    commitOffsets: async (offsets: OffsetCommit[]) => {
      requests.push(offsets);
      if (holdNext) {
        holdNext = false;
        await new Promise<void>((resolve) => (answer = resolve));
      }
      await consumer.commitOffsets(offsets);
    },
  };
  const committer = createOffsetCommitter(() => port, clock, { intervalMs: 0, maxRecords: 500 }, () => {});
  const at = (offset: number): OffsetCommit => ({ topic: 't', partition: 0, offset: String(offset) });
  return { committer, requests, at, holdNextAnswer: () => (holdNext = true), answer: () => answer?.() };
}

describe('the offset committer, when a partition’s log starts over', () => {
  it('sends the new log’s commits though they are below what the old log committed', async () => {
    const s = setup();
    await s.committer.mark(s.at(10));
    expect(s.committer.acknowledgedOffset('t', 0)).toBe(10n);
    s.committer.startsOver('t', 0);
    expect(s.committer.acknowledgedOffset('t', 0)).toBeUndefined();
    await s.committer.mark(s.at(2));
    expect(s.requests).toEqual([[s.at(10)], [s.at(2)]]);
    expect(s.committer.acknowledgedOffset('t', 0)).toBe(2n);
  });

  it('does not take back the old log’s offset when its answer comes after the log started over', async () => {
    const s = setup();
    s.holdNextAnswer();
    const old = s.committer.mark(s.at(10));
    await new Promise((resolve) => setImmediate(resolve)); // the request is out, its answer held
    expect(s.requests).toEqual([[s.at(10)]]);
    s.committer.startsOver('t', 0);
    s.answer();
    await old;
    expect(s.committer.acknowledgedOffset('t', 0)).toBeUndefined();
  });

  it('takes no commit of the new log for its own, not even at an offset the old log committed: another member\'s commit of it is not this member\'s', async () => {
    const s = setup();
    await s.committer.mark(s.at(10));
    expect(s.committer.isOwnCommit('t', 0, 10n)).toBe(true);
    s.committer.startsOver('t', 0);
    expect(s.committer.isOwnCommit('t', 0, 10n)).toBe(false);
    expect(s.committer.isOwnCommit('t', 0, 3n)).toBe(false);
  });
});

