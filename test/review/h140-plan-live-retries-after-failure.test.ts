/**
 * Review h140: `krt plan --live`, reading how far the retry group got in a draining tier (a
 * decommission), runs fetchTopicOffsets and a retrying fetchOffsets side by side
 * (src/plan/live/cluster-state.ts readClusterState, Promise.all): when the first fails for
 * good, the command disconnects its admin (plan-command.ts liveCommand's finally) while the
 * second is still retrying (a group coordinator loading or moving, or the "Failed to find
 * group coordinator" kafkajs says for a principal without the group's ACLs): its retries go on
 * against the disconnected admin, which kafkajs connects again for them. The class of the
 * `krt lag` hang h139 fixed (a1b24bc): the process printed its error and did not end.
 *
 * Seen (fake admin below): readClusterState rejects, and 7 more fetchOffsets calls are made (3
 * within the 2 s the test waits), over the next 7 s, after the caller disconnected.
 * Fixed: the two requests are settled before readClusterState gives its error
 * (Promise.allSettled), so nothing runs on after it.
 */
import type { Admin } from 'kafkajs';
import { readClusterState } from '../../src/plan/live/cluster-state';

it('krt plan --live makes no request after reading the cluster failed', async () => {
  let failed = false;
  let afterFailure = 0;
  const admin = {
    listTopics: async () => ['orders.retry.1m'],
    fetchTopicMetadata: async () => ({ topics: [{ name: 'orders.retry.1m', partitions: [{ partitionId: 0 }] }] }),
    describeConfigs: async () => ({ resources: [] }),
    describeAcls: async () => ({ resources: [] }),
    fetchTopicOffsets: async () => {
      throw Object.assign(new Error('This server does not host this topic-partition'), { retriable: false });
    },
    fetchOffsets: async () => {
      if (failed) afterFailure++;
      throw Object.assign(new Error('The group coordinator is loading'), { retriable: true });
    },
  } as unknown as Admin;
  await expect(readClusterState(admin, { topics: ['orders.retry.1m'], principals: [], lagOf: new Map([['orders.retry.1m', 'orders.retry']]) })).rejects.toThrow();
  failed = true;
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(afterFailure).toBe(0);
}, 20_000);
