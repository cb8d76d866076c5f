import { billingDescriptor } from './descriptor';
import { groupMember, notesMainFailing, type MemberHooks } from './group-member';

/**
 * The given-up-publish scenario, in a group of two (member B played by the test): this member
 * runs records 0-99 of main partition 0; record 40 fails and its tier publish is still being
 * retried (the tier refuses writes for a moment) when a rebalance gives the partition to B; B
 * runs 40-99 and commits 100; a later rebalance gives the partition back, with records 100-109
 * after B's commit. Answers what this member ran of the main records, and the group's commit.
 */
export async function partitionBackPastGivenUpPublish(hooks: MemberHooks = {}): Promise<{ ran: string[]; mainCommit: number | undefined }> {
  const consumer = billingDescriptor({ inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 100, jitter: 0 } });
  const { clock, broker, ran, retrying, produce, mainCommit } = groupMember({ consumer, handler: notesMainFailing(consumer.mainTopic), hooks });
  for (let i = 0; i < 100; i++) produce(i === 40 ? 'fail-40' : `r-${i}`);
  broker.refuseWrites(consumer.tiers[0]!.topic, 3); // record 40's tier copy is refused for a moment
  await retrying.start();
  await broker.run({ stopWhen: () => ran.includes('r-99') });
  expect(broker.records(consumer.tiers[0]!.topic)).toHaveLength(0); // 40's publish still being retried

  // The partition goes to member B, which runs 40-99 (40 into its tier, once the tier takes writes) and commits 100.
  broker.rebalance(consumer.groups.main);
  broker.commit(consumer.groups.main, [{ topic: consumer.mainTopic, partition: 0, offset: '100' }]);
  // It comes back to this member, with new records after B's commit.
  for (let i = 100; i < 110; i++) produce(`r-${i}`);
  broker.rebalance(consumer.groups.main);
  await broker.run({ until: clock.now() + 10_000 });
  await retrying.stop();
  return { ran, mainCommit: mainCommit() };
}
