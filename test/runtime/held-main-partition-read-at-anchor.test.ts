import { createMainPipeline } from '../../src/runtime/main-pipeline';
import { createOffsetCommitter } from '../../src/runtime/offset-committer';
import type { ConsumerPort, OffsetCommit } from '../../src/runtime/port';
import type { RoutedDestination } from '../../src/runtime/router';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { batchOf as partitionBatch, settled } from './held-publish-pipeline';

/** A batch of partition 0. */
const batchOf = (offsets: number[]) => partitionBatch(0, offsets);

const destination = { kind: 'dlq' } as RoutedDestination;

/**
 * A main pipeline over a client double that logs its seeks and the group's commit, whose records
 * `fails` picks fail with publishes the test holds (the copy too large even for the DLQ) and
 * acknowledges; commits go out every 100 ms on the virtual clock.
 */
function heldPartition(fails: (offset: number) => boolean, logStart?: () => Promise<string>, commitIntervalMs = 100) {
  const clock = new VirtualClock(0);
  const seeks: string[] = [];
  /** The client's pause and resume calls, in order. */
  const pauses: string[] = [];
  /** How many resume calls the client refuses next (a rejoin in progress). */
  let refuseResumes = 0;
  let committed: string | undefined;
  const consumer = {
    commitOffsets: async (offsets: OffsetCommit[]) => {
      for (const o of offsets) committed = o.offset;
    },
    committed: async () => [{ partition: 0, offset: committed ?? '-1', metadata: null }],
    pause: () => void pauses.push('pause'),
    resume: () => {
      pauses.push('resume');
      if (refuseResumes > 0 && refuseResumes--) throw new Error('The client is rejoining its group');
    },
    seek: (at: { offset: string }) => void seeks.push(at.offset),
    // The log start, read when a batch past the anchor must tell the same log from a new one (none without `logStart`).
    ...(logStart === undefined ? {} : { logStartOffsets: async () => [{ partition: 0, offset: await logStart() }] }),
  } as unknown as ConsumerPort;
  const handled: number[] = [];
  const publishes = new Map<number, { hold: () => void; acknowledge: () => void }>();
  const pipeline = createMainPipeline({
    consumer: () => consumer,
    records: {
      handler: async (record) => {
        const offset = Number(record.message.offset);
        handled.push(offset);
        if (fails(offset)) throw new Error('handler failed');
      },
      afterFailure: async (_record, error) => ({ error, destination }),
      publish: (record, failure, _abandoned, hold) =>
        new Promise((resolve) => {
          publishes.set(Number(record.message.offset), {
            hold: () => hold?.(),
            acknowledge: () => resolve({ commit: { topic: 't.dlq', partition: 0, offset: '0' }, failure }),
          });
        }),
      routed: () => {},
      succeededOnMain: () => {},
      handle: async () => {
        throw new Error('not used by the main pipeline');
      },
      revoke: () => {},
    },
    commits: createOffsetCommitter(() => consumer, clock, { intervalMs: commitIntervalMs, maxRecords: 500 }, () => {}),
    stopping: () => false,
    track: (work) => void work.catch(() => {}),
    onCommitError: () => {},
    maxInFlight: 100,
    now: () => clock.now(),
    clock,
  });
  /** The failed record's copy is held after its batch ended, then acknowledged: the partition is sought back to its last record taken. */
  const holdThenAcknowledge = async (offset: number) => {
    publishes.get(offset)!.hold();
    await settled();
    publishes.get(offset)!.acknowledge();
    await settled();
  };
  const runTimers = async () => {
    for (let i = 0; i < 20 && clock.hasTimers(); i++) {
      clock.advanceToNextTimer();
      await settled();
    }
  };
  return {
    pipeline,
    handled,
    seeks,
    pauses,
    publishes,
    holdThenAcknowledge,
    runTimers,
    committed: () => committed,
    /** The group's commit as another member (or a broker that lost a later one) left it: not this member's own. */
    commitElsewhere: (offset: string) => void (committed = offset),
    refuseResumes: (n: number) => void (refuseResumes = n),
  };
}

describe('a main partition paused for a held copy, read again at its last record taken', () => {
  it('runs every record read past the anchor when compaction removed the anchor, skipping none', async () => {
    const p = heldPartition((offset) => offset === 0);
    await p.pipeline.onBatch(batchOf([0, 1, 2, 3]));
    await p.holdThenAcknowledge(0);
    expect(p.seeks).toEqual(['3']);
    await p.pipeline.onBatch(batchOf([5, 6])); // 3 and 4 compacted away
    expect(p.handled).toEqual([0, 1, 2, 3, 5, 6]);
  });

  it('commits past the held record once the anchor is read again, though no later record has come yet', async () => {
    const p = heldPartition((offset) => offset === 0);
    await p.pipeline.onBatch(batchOf([0, 1, 2, 3]));
    await p.holdThenAcknowledge(0);
    await p.runTimers();
    expect(p.committed()).toBeUndefined(); // nothing of the partition until its log is judged
    await p.pipeline.onBatch(batchOf([3])); // the anchor, the same record: the log's last one
    await p.runTimers();
    expect({ handled: p.handled, committed: p.committed() }).toEqual({ handled: [0, 1, 2, 3], committed: '4' });
  });

  it('seeks back to the anchor once when a second hold is read below it at the offset where the first one was: that read was judged already', async () => {
    const p = heldPartition((offset) => offset === 0 || offset === 5);
    await p.pipeline.onBatch(batchOf([0, 1, 2, 3]));
    await p.holdThenAcknowledge(0);
    await p.pipeline.onBatch(batchOf([1, 2])); // the client did not read from the seek
    await p.pipeline.onBatch(batchOf([3, 4, 5, 6])); // the anchor, then on
    await p.holdThenAcknowledge(5);
    await p.pipeline.onBatch(batchOf([1, 2])); // below the new anchor again, at the same offset as before
    expect(p.seeks).toEqual(['3', '3', '6', '6']);
    await p.pipeline.onBatch(batchOf([6, 7]));
    expect(p.handled).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  // From the mutation run of 2026-12-04: readAtAnchor's seek-again and stale-batch branches.
  it('seeks back to the anchor when the client read below it, and runs none of the records below it again', async () => {
    const p = heldPartition((offset) => offset === 0);
    await p.pipeline.onBatch(batchOf([0, 1, 2, 3]));
    await p.holdThenAcknowledge(0);
    await p.pipeline.onBatch(batchOf([1, 2])); // the client did not read from the seek
    expect(p.seeks).toEqual(['3', '3']);
    await p.pipeline.onBatch(batchOf([3, 4]));
    expect(p.handled).toEqual([0, 1, 2, 3, 4]);
  });

  it('commits nothing of the partition while the client reads below the anchor: the log is not judged until the anchor is read', async () => {
    const p = heldPartition((offset) => offset === 0, undefined, 0); // each record committed as it finishes
    await p.pipeline.onBatch(batchOf([0, 1, 2, 3]));
    await p.holdThenAcknowledge(0);
    await p.pipeline.onBatch(batchOf([1, 2])); // below the anchor: perhaps a new log that ends before it
    await p.runTimers();
    expect({ seeks: p.seeks, committed: p.committed() }).toEqual({ seeks: ['3', '3'], committed: undefined });
    await p.pipeline.onBatch(batchOf([3, 4])); // the anchor, the same record: now the old progress may go
    await p.runTimers();
    expect(p.committed()).toBe('5');
  });

  it('judges nothing by a batch fetched before the seek to the anchor: it neither seeks again nor runs a record', async () => {
    const p = heldPartition((offset) => offset === 0);
    await p.pipeline.onBatch(batchOf([0, 1, 2, 3]));
    await p.holdThenAcknowledge(0);
    await p.pipeline.onBatch({ ...batchOf([1, 2]), isStale: () => true });
    expect(p.seeks).toEqual(['3']);
    await p.pipeline.onBatch(batchOf([3, 4]));
    expect(p.handled).toEqual([0, 1, 2, 3, 4]);
  });

  // From the mutation run of session 55 (readAtAnchor, second run): the stale check after the log start is read,
  // and the anchor forgotten once judged.
  it('judges nothing by a batch that went stale while the log start was read for it: no seek, no record run, the next batch judged', async () => {
    let stale = false;
    const p = heldPartition(
      (offset) => offset === 0,
      async () => {
        stale = true; // the client was sought meanwhile: the batch in hand says nothing now
        return '0';
      },
    );
    await p.pipeline.onBatch(batchOf([0, 1, 2, 3]));
    await p.holdThenAcknowledge(0);
    await p.pipeline.onBatch({ ...batchOf([5, 6]), isStale: () => stale });
    expect({ seeks: p.seeks, handled: p.handled }).toEqual({ seeks: ['3'], handled: [0, 1, 2, 3] });
    // Read again, the batch is judged: past the anchor, a log start below it and no commit: read again from the start.
    await p.pipeline.onBatch(batchOf([5, 6]));
    expect(p.seeks).toEqual(['3', '0']);
  });

  it('reads on past the anchor once it was read again, without judging the next batch by it', async () => {
    const p = heldPartition((offset) => offset === 0, async () => '0');
    await p.pipeline.onBatch(batchOf([0, 1, 2, 3]));
    await p.holdThenAcknowledge(0);
    await p.pipeline.onBatch(batchOf([3, 4])); // the anchor, the same record: the same log
    await p.pipeline.onBatch(batchOf([5, 6])); // the log start (0) lies below the anchor, and nothing is committed yet
    expect({ seeks: p.seeks, handled: p.handled }).toEqual({ seeks: ['3'], handled: [0, 1, 2, 3, 4, 5, 6] });
  });

  it('reads again from the group\u2019s commit when it moved back during the hold and the batch read at the anchor starts past it, though the log start cannot be read', async () => {
    const p = heldPartition((offset) => offset === 3, undefined, 0);
    await p.pipeline.onBatch(batchOf([0, 1, 2, 3, 4, 5]));
    expect(p.committed()).toBe('3'); // 0 to 2 finished; 3 waits for its copy
    p.commitElsewhere('1');
    await p.holdThenAcknowledge(3);
    expect(p.seeks).toEqual(['5']); // the anchor judges first
    // Past the anchor, as a new log whose records at 5 and 6 are never handed out (control records) reads.
    await p.pipeline.onBatch(batchOf([7, 8]));
    expect({ seeks: p.seeks, handled: p.handled }).toEqual({ seeks: ['5', '1'], handled: [0, 1, 2, 3, 4, 5] });
  });

  it('after a rebalance, a batch ending before the last record taken is not judged against it: the partition is read again from its first record not finished', async () => {
    const p = heldPartition((offset) => offset === 1);
    await p.pipeline.onBatch(batchOf([0, 1, 2, 3])); // 1's copy is not acknowledged yet
    p.pipeline.forget(); // a rebalance: 1's publish gives up
    await p.pipeline.onBatch(batchOf([0, 1])); // the client reads from the group's commit, a short batch
    expect(p.seeks).toEqual(['1']); // not the anchor (3): records 1 and 2 would never run again
    await p.pipeline.onBatch(batchOf([1, 2, 3, 4]));
    expect(p.handled.slice(4)).toEqual([1, 2, 3, 4]);
  });

  it('does not pause a partition a rebalance took for a publish held after it: nothing would resume it', async () => {
    const p = heldPartition((offset) => offset === 0);
    await p.pipeline.onBatch(batchOf([0, 1]));
    p.pipeline.forget(); // a rebalance: the partition's progress is dropped
    p.publishes.get(0)!.hold(); // the old publish is held only now
    await settled();
    expect(p.pauses).toEqual([]);
  });

  it('commits nothing of a partition a rebalance took when a publish of it is acknowledged after', async () => {
    const p = heldPartition((offset) => offset === 0);
    await p.pipeline.onBatch(batchOf([0, 1, 2]));
    p.pipeline.forget(); // a rebalance: the partition may be another member's now
    p.publishes.get(0)!.acknowledge();
    await settled();
    await p.runTimers();
    expect(p.committed()).toBeUndefined();
  });

  it('asks a client that refuses to resume the held partition again after a pause, not in a tight loop', async () => {
    const p = heldPartition((offset) => offset === 0);
    await p.pipeline.onBatch(batchOf([0, 1]));
    p.refuseResumes(1);
    await p.holdThenAcknowledge(0);
    expect(p.pauses).toEqual(['pause', 'resume']); // refused: the next try waits
    await p.runTimers();
    expect(p.pauses).toEqual(['pause', 'resume', 'resume']);
  });
});
