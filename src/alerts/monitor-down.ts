import { METRICS } from '../naming';
import { ABSENCE_PRESETS, absentRule } from './absent-rule';
import { defineAlert } from './alert-module';
import { describeDuration } from './context';
import { selector } from './promql';

/**
 * Its runbook section after the "Fires when" line (Handlebars): the fields `runbook` gives,
 * and the consumer's whole page under `page`.
 */
const RUNBOOK = `**What it means.** Prometheus has no \`{{page.metrics.dlqSize}}\` for \`{{page.dlq.name}}\`:
\`krt monitor\` (or the service's in-process monitor) is down, cannot read Kafka as
\`{{page.principals.monitor}}\`, or is not scraped. Without it
[KafkaDlqBacklog](#kafkadlqbacklog), [KafkaDlqOldestMessageAge](#kafkadlqoldestmessageage),
{{#if page.tiers.length}}[KafkaRetryTierStuck](#kafkaretrytierstuck), {{/if}}[KafkaDlqRecordsExpired](#kafkadlqrecordsexpired)
and [KafkaRetryMainConsumerLag](#kafkaretrymainconsumerlag) cannot fire.

**Likely causes.**
- The monitor process is stopped or crash-looping.
{{#if page.tiers.length}}- It runs a copy of the topology from before a tier was added or its delay changed: it
  exports the DLQ but not that tier's \`kafka_retry_tier_overdue_seconds\`. Deploy it again
  with the current \`topologies/\`.
{{/if}}- It cannot reach Kafka, or its principal lost an ACL: its logs and its health path say which.
- The scrape config no longer finds it.

**First checks.**
1. The monitor's health path (\`/healthz\`) and logs: the last poll error is there.
2. \`up\` of its target on the Prometheus targets page.

**Fix.** Start the monitor (\`krt monitor\`, see the monitoring docs), restore its ACLs by
deploying the generated Terraform (\`cdktf deploy {{page.topology}}\`), or fix the scrape.
`;

/** No monitor exports the DLQ and tier gauges: the backlog, age and tier alerts are blind. */
export const monitorDown = defineAlert({
  key: 'monitorDown',
  watches: 'metrics',
  thresholdUnit: "unused (0); `for` is how long the monitor's gauges may be missing",
  docs: {
    meaning: "no monitor exports the DLQ and tier gauges (down, cannot read Kafka, or not scraped), or it exports no gauge of a tier (it runs a copy of the topology from before the tier)",
    query: '`absent(kafka_dlq_size{topic="<dlq>"}) or on() absent(kafka_retry_tier_overdue_seconds{topic="<tier>"}) ...` (every tier)',
  },
  presets: ABSENCE_PRESETS,
  rules: (ctx) => {
    const { consumer } = ctx;
    return [
      absentRule(
        ctx,
        'monitorDown',
        consumer.dlq.name,
        METRICS.dlqSize,
        {
          summary: `The DLQ and tier monitor of ${consumer.name} is not running, or Prometheus does not scrape it`,
          description: `Prometheus has no ${METRICS.dlqSize} of ${consumer.name} for ${consumer.dlq.name}: \`krt monitor\` (or the service's in-process monitor) is down, cannot reach Kafka, or is not scraped. Or it exports the DLQ but not every tier's ${METRICS.retryTierOverdueSeconds}: it runs an older copy of the topology. The DLQ backlog, oldest-record, expiry, tier and main-lag alerts cannot fire.`,
        },
        {
          // An environment whose services run needs a monitor too, even one that never had any.
          expectedWith: selector(METRICS.messagesTotal, { consumer: consumer.name, topic: consumer.mainTopic.name }),
          // A monitor that runs an older copy of the topology (a tier added or renamed since)
          // exports the DLQ but not that tier: KafkaRetryTierStuck could not fire for it.
          alsoScraped: consumer.tiers.map((tier) => selector(METRICS.retryTierOverdueSeconds, { consumer: consumer.name, topic: tier.name })),
        },
      ),
    ];
  },
  runbook: (c) => ({
    condition: `Prometheus has had no DLQ and tier gauges of ${c.name} ${describeDuration(c.alerts.monitorDown.forMs)}`,
  }),
  runbookTemplate: RUNBOOK,
});
