import type { ConsumerModel, RetryTierModel } from '../model/types';

/**
 * The tier of `now` with the delay of `old` under another topic name: the tier was renamed
 * (retryTopicBase or naming changed), not taken out of the ladder, so retiring it (its delay is
 * still live) is no way out.
 */
export function renamedTier(old: RetryTierModel, now: ConsumerModel): RetryTierModel | undefined {
  return [...now.tiers, ...now.drainingTiers].find((tier) => tier.delayMs === old.delayMs && tier.name !== old.name);
}
