import { emptyParkState, parkStateMetadata } from '../../src/runtime/park-state';
import type { VirtualClock } from '../../src/simulate/virtual-clock';
import { billingDescriptor } from './descriptor';
import { groupMember, refusedCommits } from './group-member';

/**
 * Found by an attack on the commit window (s25), kept as the regression: the broker refuses every commit (the group's ACL was
 * revoked, the coordinator keeps answering NOT_COORDINATOR), so the records done fill the
 * window (maxRecords) and the partition's next record waits for room (waitForRoom). The
 * operator stops the service.
 */
/** kafkajs's refusal of a group the service may no longer use. */
const groupAuthorizationFailed = () =>
  Object.assign(new Error('Not authorized to access group'), { name: 'KafkaJSProtocolError', type: 'GROUP_AUTHORIZATION_FAILED', code: 30, retriable: false });

/** Waits for `work` while the virtual clock goes on, for at most `ms` of simulated time; says whether it settled. */
async function settlesWithin(clock: VirtualClock, ms: number, work: Promise<unknown>): Promise<boolean> {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  const end = clock.now() + ms;
  while (!settled && clock.now() < end) {
    for (let i = 0; i < 20 && !settled; i++) await new Promise((resolve) => setImmediate(resolve));
    if (settled || !clock.hasTimers()) break;
    clock.advanceToNextTimer();
  }
  for (let i = 0; i < 20 && !settled; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('stop() while a partition waits for room in the commit window returns', () => {
  for (const ordering of ['unordered', 'park-by-key'] as const) {
    // Was (unordered): stop() waited for the work in hand (inFlight) before it called close(),
    // and close() was what ended waitForRoom's wait; the record waiting for room is that
    // work. While commits were refused, stop() never returned (SIGTERM ended in a SIGKILL).
    // drainTimeoutMs (10 s) later bounded it; stop() now releases the committers' waits first,
    // so a wait for room, which is none of the user's code, costs no drain time.
    it(`${ordering}: stop() returns within a second (not at drainTimeoutMs) while every commit is refused`, async () => {
      const consumer = billingDescriptor({ ordering, ...(ordering === 'park-by-key' ? { groups: { ...billingDescriptor().groups, retry: billingDescriptor().groups.main } } : {}) });
      const { clock, broker, ran, retrying, produce } = groupMember({
        consumer,
        throwReaction: 'kafkajs',
        commit: { intervalMs: 100, maxRecords: 3 },
        hooks: { commitOffsets: refusedCommits(groupAuthorizationFailed) },
      });
      for (let i = 0; i < 10; i++) produce(`v${i}`, `k${i}`);
      // Park-by-key commits a state begun from nothing, and its tier partitions never committed,
      // before its first record: the group has them already (committed before the refusals
      // began), so records are taken until the window is full.
      if (ordering === 'park-by-key') broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: '0', metadata: parkStateMetadata(emptyParkState(0n)) }, ...consumer.tiers.map((t) => ({ topic: t.topic, partition: 0, offset: '0' }))]);
      await retrying.start();
      await broker.run({ until: clock.now() + 5_000, maxSteps: 2_000 }).catch(() => undefined);
      // Unordered: the window is full. Park-by-key: its first record ran, its state commit is
      // refused, and it is taken again (the state here has no id, so it runs again each time:
      // ran-awaiting-commit.ts remembers a run only under a state's id).
      if (ordering === 'unordered') expect(ran.length).toBeGreaterThanOrEqual(3);
      else expect(ran[0]).toBe('v0');
      const stopped = await settlesWithin(clock, 1_000, retrying.stop());
      expect(stopped).toBe(true);
    });
  }
});
