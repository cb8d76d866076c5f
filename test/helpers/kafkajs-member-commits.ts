import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import { eventually } from './eventually';
import { kafkaAsAdmin } from './kafka';

/**
 * Commits offsets with metadata for `groupId` as a joined member of the group on kafkajs, as the
 * runtime's kafkajs adapter does (and as earlier releases did): the metadata goes as given, no
 * NUL added. The member joins on `topic` first (the group's coordinator takes commits with
 * metadata from a member of its generation) and leaves after.
 */
export async function commitAsKafkajsMember(groupId: string, topic: string, commits: readonly { partition: number; offset: string; metadata: string }[]): Promise<void> {
  const writer = kafkajsPort(kafkaAsAdmin()).consumer(groupId);
  let joined = false;
  writer.onRebalance(() => (joined = true));
  await writer.connect();
  try {
    await writer.subscribe({ topics: [topic], fromBeginning: true });
    await writer.run({ eachBatch: async () => {} });
    await eventually('the writer to join', () => (joined ? true : undefined));
    await writer.commitOffsets(commits.map((c) => ({ topic, ...c })));
  } finally {
    await writer.disconnect();
  }
}
