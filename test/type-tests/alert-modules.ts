/**
 * Alert modules and lists that leave out a part. Each is a compile error: the directives
 * expect it (`npm run typecheck` fails once one compiles), and test/alerts.test.ts
 * compiles this file without them to see which error each one is.
 */
import { defineAlert, everyAlert } from '../../src/alerts/alert-module';
import { consumerDown } from '../../src/alerts/consumer-down';
import { dlqBacklog } from '../../src/alerts/dlq-backlog';
import { dlqNewMessages } from '../../src/alerts/dlq-new-messages';
import { dlqOldestMessageAge } from '../../src/alerts/dlq-oldest-message-age';
import { dlqRecordsExpired } from '../../src/alerts/dlq-records-expired';
import { mainConsumerLag } from '../../src/alerts/main-consumer-lag';
import { retryRateSpike } from '../../src/alerts/retry-rate-spike';
import { retryTierStuck } from '../../src/alerts/retry-tier-stuck';

const { runbook: _runbook, ...withoutRunbook } = dlqBacklog;
// @ts-expect-error an alert without its runbook facts
defineAlert(withoutRunbook);

const { runbookTemplate: _runbookTemplate, ...withoutRunbookTemplate } = dlqBacklog;
// @ts-expect-error an alert without its runbook text
defineAlert(withoutRunbookTemplate);

const { analytics: _analytics, ...withoutAnalytics } = dlqBacklog.presets;
// @ts-expect-error an alert without a preset for every criticality
defineAlert({ ...dlqBacklog, presets: withoutAnalytics });

// @ts-expect-error a list of alerts without monitorDown's module
everyAlert([dlqNewMessages, dlqBacklog, dlqOldestMessageAge, retryTierStuck, retryRateSpike, dlqRecordsExpired, mainConsumerLag, consumerDown]);
