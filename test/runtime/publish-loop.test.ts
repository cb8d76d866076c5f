import { publishUntilAcknowledged } from '../../src/runtime/publish-loop';
import { UnknownPartitionError } from '../../src/runtime/publish-failure';

/** Publishes through a producer that fails with `failures` in turn, then acknowledges; returns what it saw. */
async function publishThrough(failures: readonly Error[], mayRepartition: boolean) {
  const tries: boolean[] = [];
  const waits: number[] = [];
  const reported: { reason: string; retryInMs: number }[] = [];
  await publishUntilAcknowledged({
    publish: async ({ defaultPartitioner }) => {
      tries.push(defaultPartitioner === true);
      const failure = failures[tries.length - 1];
      if (failure) throw failure;
    },
    mayRepartition,
    backoff: { initialMs: 100, maxMs: 1_000 },
    wait: async (ms) => void waits.push(ms),
    onFailure: ({ reason, retryInMs }) => reported.push({ reason, retryInMs }),
  });
  return { tries, waits, reported };
}

const refused = () => new Error('broker refused the write');
const noPartition = () => new UnknownPartitionError('orders.confirmed.retry.1m', 7);

describe('publishing a tier or DLQ record until the broker acknowledges', () => {
  it('keeps an unordered record on its partition and backs off when the broker refuses it: only a missing partition moves it', async () => {
    const { tries, waits, reported } = await publishThrough([refused(), refused()], true);
    expect(tries).toEqual([false, false, false]);
    expect(waits).toEqual([100, 200]);
    expect(reported.map((failure) => failure.reason)).toEqual(['other', 'other']);
  });

  it('moves an unordered record to the default partitioner at once when its partition is missing, then backs off from the initial wait', async () => {
    const { tries, waits } = await publishThrough([noPartition(), refused(), refused()], true);
    expect(tries).toEqual([false, true, true, true]);
    expect(waits).toEqual([0, 100, 200]);
  });

  it('keeps a park-by-key record on its partition while the partition is missing, backing off and capped', async () => {
    const { tries, waits, reported } = await publishThrough([noPartition(), noPartition(), noPartition(), noPartition(), noPartition()], false);
    expect(tries.every((moved) => !moved)).toBe(true);
    expect(waits).toEqual([100, 200, 400, 800, 1_000]);
    expect(reported.map((failure) => failure.retryInMs)).toEqual(waits);
  });
});
