import { seekAgainOnResume } from '../../src/runtime/adapters/seek-again-on-resume';
import type { PauseSeekResume } from '../../src/runtime/adapters/seek-again-on-resume';

/** A consumer that records the calls it receives, in order. */
function recordingConsumer() {
  const calls: string[] = [];
  const consumer: PauseSeekResume = {
    pause: (t) => calls.push(`pause ${t.map((x) => `${x.topic}/${x.partitions.join('+')}`).join(' ')}`),
    resume: (t) => calls.push(`resume ${t.map((x) => `${x.topic}/${x.partitions.join('+')}`).join(' ')}`),
    seek: (s) => calls.push(`seek ${s.topic}/${s.partition}@${s.offset}`),
  };
  return { consumer, calls };
}

const tier = 'orders.retry.5s';

describe('seeking a paused partition again as it resumes', () => {
  it('seeks a partition that waited paused at its head to that head again right after the resume', () => {
    const { consumer, calls } = recordingConsumer();
    const wrapped = seekAgainOnResume(consumer);
    wrapped.pause([{ topic: tier, partitions: [2] }]);
    wrapped.seek({ topic: tier, partition: 2, offset: '41' });
    wrapped.resume([{ topic: tier, partitions: [2] }]);
    expect(calls).toEqual([`pause ${tier}/2`, `seek ${tier}/2@41`, `resume ${tier}/2`, `seek ${tier}/2@41`]);
  });

  it('seeks to the last offset sought while paused, once, and not again at a later resume', () => {
    const { consumer, calls } = recordingConsumer();
    const wrapped = seekAgainOnResume(consumer);
    wrapped.pause([{ topic: tier, partitions: [0, 1] }]);
    wrapped.seek({ topic: tier, partition: 0, offset: '7' });
    wrapped.seek({ topic: tier, partition: 0, offset: '5' });
    wrapped.resume([{ topic: tier, partitions: [0, 1] }]);
    wrapped.pause([{ topic: tier, partitions: [0] }]);
    wrapped.resume([{ topic: tier, partitions: [0] }]);
    expect(calls.filter((c) => c.startsWith('seek')).slice(2)).toEqual([`seek ${tier}/0@5`]);
  });

  it('leaves seeks of running partitions and resumes of partitions never sought alone', () => {
    const { consumer, calls } = recordingConsumer();
    const wrapped = seekAgainOnResume(consumer);
    wrapped.seek({ topic: tier, partition: 3, offset: '9' });
    wrapped.pause([{ topic: tier, partitions: [3] }]);
    wrapped.resume([{ topic: tier, partitions: [3] }]);
    expect(calls).toEqual([`seek ${tier}/3@9`, `pause ${tier}/3`, `resume ${tier}/3`]);
  });

  it('after a rebalance resumes without seeking, so the group’s positions stand and no seek waits for a later assignment', () => {
    const { consumer, calls } = recordingConsumer();
    const wrapped = seekAgainOnResume(consumer);
    wrapped.pause([{ topic: tier, partitions: [4] }]);
    wrapped.seek({ topic: tier, partition: 4, offset: '12' });
    wrapped.forget();
    wrapped.resume([{ topic: tier, partitions: [4] }]);
    expect(calls).toEqual([`pause ${tier}/4`, `seek ${tier}/4@12`, `resume ${tier}/4`]);
  });

  it('keeps partitions of different topics apart', () => {
    const { consumer, calls } = recordingConsumer();
    const wrapped = seekAgainOnResume(consumer);
    wrapped.pause([{ topic: tier, partitions: [0] }]);
    wrapped.seek({ topic: tier, partition: 0, offset: '3' });
    wrapped.resume([{ topic: 'orders.retry.1m', partitions: [0] }]);
    expect(calls).toEqual([`pause ${tier}/0`, `seek ${tier}/0@3`, 'resume orders.retry.1m/0']);
  });

  it('resumes the partition even when the second seek throws: that seek only wakes the fetcher', () => {
    const { consumer, calls } = recordingConsumer();
    const wrapped = seekAgainOnResume({ ...consumer, seek: (s) => (calls.includes(`resume ${tier}/6`) ? (() => { throw new Error('Seek can only be called while connected.'); })() : consumer.seek(s)) });
    wrapped.pause([{ topic: tier, partitions: [6] }]);
    wrapped.seek({ topic: tier, partition: 6, offset: '2' });
    expect(() => wrapped.resume([{ topic: tier, partitions: [6] }])).not.toThrow();
    expect(calls).toEqual([`pause ${tier}/6`, `seek ${tier}/6@2`, `resume ${tier}/6`]);
  });
});
