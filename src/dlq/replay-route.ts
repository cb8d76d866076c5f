import type { ConsumerModel, RetryTierModel } from '../model/types';
import { DLQ_FLAGS, HEADERS, PARK_STATE_HEADER, REPLAY_COUNT_HEADER, REPLAY_ROUTES } from '../naming';
import type { ReplayRouteName } from '../naming';
import { passThroughHeaders } from '../runtime/headers';
import { DlqError } from './session';
import type { DlqRecord } from './session';

/** Where replayed records are published, and which groups read them there. */
export interface ReplayRoute {
  readonly name: ReplayRouteName;
  readonly topic: string;
  readonly partitions: number;
  /** The consumer's first tier, when the route goes through it: only the consumer's own group reads it. */
  readonly tier?: RetryTierModel;
}

const mainTopicFlag = `${DLQ_FLAGS.to} ${REPLAY_ROUTES.mainTopic}`;

/**
 * The route of a replay. By default the consumer's first tier, due at once: R2 makes
 * every tier this consumer's own, so no other group sees the record. A consumer without
 * tiers (in-place-only) has no route of its own: its group reads only the main topic, and
 * so does every other group there; the default is refused rather than quietly widened.
 */
export function replayRoute(consumer: ConsumerModel, name: ReplayRouteName = REPLAY_ROUTES.firstTier): ReplayRoute {
  if (name === REPLAY_ROUTES.mainTopic) return { name, topic: consumer.mainTopic.name, partitions: consumer.mainTopic.partitions };
  const tier = consumer.tiers[0];
  if (!tier) {
    throw new DlqError(
      `${consumer.name} has no retry tier (ordering ${consumer.ordering}), so no topic leads back to its group alone; to replay to every group that reads ${consumer.mainTopic.name}, run again with ${mainTopicFlag}`,
    );
  }
  return { name, topic: tier.name, partitions: tier.partitions, tier };
}

/** Where a record goes: the route's topic, in the record's original partition when it has one there. */
export function replayTarget(consumer: ConsumerModel, route: ReplayRoute, record: DlqRecord): { topic: string; partition?: number } {
  const { originalTopic, originalPartition, originalOffset } = record.decoded;
  const topic = originalTopic ?? consumer.mainTopic.name;
  if (topic !== consumer.mainTopic.name) {
    throw new DlqError(`record ${record.id} came from ${topic}, not from ${consumer.mainTopic.name}; replay it with the tools of that topic's consumer`);
  }
  const partition = originalPartition !== undefined && originalPartition < Math.min(route.partitions, consumer.mainTopic.partitions) ? originalPartition : undefined;
  if (route.tier && consumer.ordering === 'park-by-key') {
    // A tier record meets its key's state in the main partition it names; one without an
    // original offset releases whatever retry holds its key (key-parking's duplicate rule).
    if (partition === undefined) {
      throw new DlqError(`record ${record.id} has no usable ${HEADERS.originalPartition}, and ${consumer.name} keeps each key's order within its main partition; replay it with ${mainTopicFlag}`);
    }
    if (originalOffset === undefined) {
      throw new DlqError(`record ${record.id} has no usable ${HEADERS.originalOffset}: on the tier it would release the retry holding its key; replay it with ${mainTopicFlag}`);
    }
  }
  return { topic: route.topic, ...(partition !== undefined ? { partition } : {}) };
}

/**
 * The record as the route takes it: the original key, value and headers, the
 * `x-replayed-from-dlq` marker and a raised replay count. To the main topic, a new record
 * (attempt 1, no other x-* header). To the first tier, a tier record due now: the attempt
 * the runtime counts there, and the original-* headers, so a failure there is described
 * as the main-topic record's and a park-by-key consumer matches its key's retry by them.
 */
export function replayMessage(consumer: ConsumerModel, route: ReplayRoute, record: DlqRecord, now: number) {
  const target = replayTarget(consumer, route, record);
  const common = {
    [HEADERS.replayedFromDlq]: `${consumer.dlq.name}/${record.id}`,
    [REPLAY_COUNT_HEADER]: String(record.replayCount + 1),
  };
  const { originalOffset, originalTimestamp } = record.decoded;
  // Not the id of the park-by-key state that wrote its last copy: a replay is judged as one
  // (it runs, and holds its key if it fails on), whichever state runs it now.
  const own = passThroughHeaders(record.headers);
  delete own[PARK_STATE_HEADER];
  const headers = route.tier
    ? {
        ...own,
        [HEADERS.attempt]: String(route.tier.index + 1),
        [HEADERS.dueAt]: String(now),
        [HEADERS.originalTopic]: consumer.mainTopic.name,
        ...(target.partition !== undefined ? { [HEADERS.originalPartition]: String(target.partition) } : {}),
        ...(originalOffset !== undefined ? { [HEADERS.originalOffset]: originalOffset } : {}),
        ...(originalTimestamp !== undefined ? { [HEADERS.originalTimestamp]: String(originalTimestamp) } : {}),
        ...common,
      }
    : { ...own, [HEADERS.attempt]: '1', ...common };
  return { key: record.key, value: record.value, ...(target.partition !== undefined ? { partition: target.partition } : {}), headers };
}
