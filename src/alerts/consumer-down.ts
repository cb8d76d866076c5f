import { METRICS } from '../naming';
import { ABSENCE_PRESETS, absentRule } from './absent-rule';
import { defineAlert } from './alert-module';
import { describeDuration } from './context';

/** No service of the consumer exports metrics: nothing consumes, and every service-side alert is blind. */
export const consumerDown = defineAlert({
  key: 'consumerDown',
  watches: 'metrics',
  thresholdUnit: "unused (0); `for` is how long the service's metrics may be missing",
  presets: ABSENCE_PRESETS,
  // A stopped service leaves its tiers and its main topic unconsumed.
  explains: ['retryTierStuck', 'mainConsumerLag'],
  rules: (ctx) => {
    const { consumer } = ctx;
    return [
      absentRule(ctx, 'consumerDown', consumer.mainTopic.name, METRICS.messagesTotal, {
        summary: `No service of ${consumer.name} is running, or Prometheus does not scrape it`,
        description: `Prometheus has no ${METRICS.messagesTotal} of ${consumer.name} for ${consumer.mainTopic.name}: the service is down, or it is not scraped. Nothing consumes, and the alerts that read the service's metrics cannot fire.`,
      }),
    ];
  },
  runbook: (c) => ({
    condition: `Prometheus has had no metrics from any service of ${c.name} ${describeDuration(c.alerts.consumerDown.forMs)}`,
  }),
});
