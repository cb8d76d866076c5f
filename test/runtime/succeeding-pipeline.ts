import { createMainPipeline } from '../../src/runtime/main-pipeline';
import { createOffsetCommitter, type CommitPolicy } from '../../src/runtime/offset-committer';
import type { ConsumerPort } from '../../src/runtime/port';
import type { VirtualClock } from '../../src/simulate/virtual-clock';

/**
 * A main pipeline over `consumer` whose every record succeeds (its offset noted in `handled`),
 * committing through a committer of `policy` on the virtual clock: what the commit window and
 * the group-commit read do, with no failure and no publish in the way.
 */
export function succeedingPipeline(consumer: ConsumerPort, clock: VirtualClock, policy: CommitPolicy) {
  const handled: number[] = [];
  const commits = createOffsetCommitter(() => consumer, clock, policy, () => {});
  const pipeline = createMainPipeline({
    consumer: () => consumer,
    records: {
      handler: async (record) => void handled.push(Number(record.message.offset)),
      afterFailure: async () => undefined,
      publish: async () => {
        throw new Error('nothing fails here');
      },
      routed: () => {},
      succeededOnMain: () => {},
      handle: async () => {
        throw new Error('not used by the main pipeline');
      },
      revoke: () => {},
    },
    commits,
    stopping: () => false,
    track: () => {},
    onCommitError: () => {},
    maxInFlight: 100,
    now: () => clock.now(),
  });
  return { pipeline, commits, handled };
}
