import type { PanelContext } from './context';
import { dlqExpired, dlqOldestAge, dlqSize } from './dlq';
import { mainLag } from './main-lag';
import type { RowPanelBuilder } from './panel-kit';
import { publishFailures, recordsPerSecond, retryShare, routedByErrorClass } from './throughput';
import { deliveryLateness, tierLag } from './tiers';

/** The panels of a consumer's row, in reading order: traffic, tiers, DLQ, main lag, failed publishes. */
export function consumerPanels(ctx: PanelContext): RowPanelBuilder[] {
  const tiers = ctx.consumer.tiers;
  return [
    recordsPerSecond(ctx),
    retryShare(ctx),
    routedByErrorClass(ctx),
    ...tiers.map((tier) => tierLag(ctx, tier)),
    ...(tiers.length > 0 ? [deliveryLateness(ctx)] : []),
    dlqSize(ctx),
    dlqOldestAge(ctx),
    dlqExpired(ctx),
    mainLag(ctx),
    publishFailures(ctx),
  ];
}
