import { METRICS } from '../naming';
import { ABSENCE_PRESETS, absentRule } from './absent-rule';
import { defineAlert } from './alert-module';
import { describeDuration } from './context';

/**
 * Its runbook section after the "Fires when" line (Handlebars): the fields `runbook` gives,
 * and the consumer's whole page under `page`.
 */
const RUNBOOK = `**What it means.** Prometheus has no \`{{page.metrics.messagesTotal}}\` from any service of
{{page.name}}: every service is down, or Prometheus does not scrape them. The services
create these series at zero when they start, so a running, scraped service always has
them. While it fires, the alerts that read the services' metrics
([KafkaDlqNewMessages](#kafkadlqnewmessages) from the services' side,
[KafkaRetryRateSpike](#kafkaretryratespike)) cannot fire; it inhibits
{{#if page.tiers.length}}[KafkaRetryTierStuck](#kafkaretrytierstuck) and {{/if}}[KafkaRetryMainConsumerLag](#kafkaretrymainconsumerlag),
which it explains.

**Likely causes.**
- The service is stopped, crash-looping or scaled to zero.
- Its metrics endpoint moved, or the scrape config or service discovery no longer finds it.

**First checks.**
1. Whether the service runs: your orchestrator's status and logs for {{page.name}}.
2. Whether Prometheus scrapes it: \`up\` of its target on the Prometheus targets page.
3. Members of the main group \`{{page.groups.main}}\` (none means no instance is running), as the monitor: \`{{page.commands.lag}}\`.

**Fix.** Start the service, or fix the scrape. Records wait in \`{{page.mainTopic.name}}\` and
the tiers meanwhile; nothing is lost while the topics' retention holds them.
`;

/** No service of the consumer exports metrics: nothing consumes, and every service-side alert is blind. */
export const consumerDown = defineAlert({
  key: 'consumerDown',
  watches: 'metrics',
  thresholdUnit: "unused (0); `for` is how long the service's metrics may be missing",
  docs: {
    meaning: 'no service of the consumer exports metrics (down, or not scraped)',
    query: '`absent(kafka_retry_messages_total{topic="<main>"})`',
    explainsBecause: 'a stopped service leaves its tiers and main topic unconsumed',
  },
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
  runbookTemplate: RUNBOOK,
});
