/**
 * Alert modules and lists that leave out a part. Each is a compile error: the directives
 * expect it (`npm run typecheck` fails once one compiles), and test/alerts.test.ts
 * compiles this file without them to see which error each one is.
 */
import { defineAlert, everyAlert } from '../../src/alerts/alert-module';
import type { AlertedConsumer } from '../../src/alerts/context';
import { consumerDown } from '../../src/alerts/consumer-down';
import { dlqBacklog } from '../../src/alerts/dlq-backlog';
import { dlqNewMessages } from '../../src/alerts/dlq-new-messages';
import { dlqOldestMessageAge } from '../../src/alerts/dlq-oldest-message-age';
import { dlqRecordsExpired } from '../../src/alerts/dlq-records-expired';
import { mainConsumerLag } from '../../src/alerts/main-consumer-lag';
import { monitorDown } from '../../src/alerts/monitor-down';
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

// @ts-expect-error a list without dlqNewMessages's module, which dlqBacklog explains and reads
everyAlert([dlqBacklog, dlqOldestMessageAge, retryTierStuck, retryRateSpike, dlqRecordsExpired, mainConsumerLag, consumerDown, monitorDown]);

const misspelt = defineAlert({ ...dlqBacklog, key: 'dlqBacklogAge', runbook: (c: AlertedConsumer<'dlqBaklog'>) => ({ condition: String(c.alerts.dlqBaklog.threshold) }) });
// @ts-expect-error a module that reads the policy of an alert no module has (a misspelt key)
everyAlert([dlqNewMessages, dlqBacklog, misspelt]);
