import { topicIdIn } from '../runtime/topic-id';
import type { KafkaAdmin } from './group-commits';
import { retryingRetriable } from './retriable';

/** The topic's id as the admin reports it (topicIdIn), or undefined where it reports none. */
export async function topicIdOf(admin: KafkaAdmin, topic: string): Promise<string | undefined> {
  return topicIdIn(await retryingRetriable(() => admin.fetchTopicMetadata({ topics: [topic] })), topic);
}
