/**
 * Alert modules and lists that leave out a part. Each is a compile error: the directives
 * expect it (`npm run typecheck` fails once one compiles), and test/alerts.test.ts
 * compiles this file without them to see which error each one is.
 */
import { defineAlert, everyAlert } from '../../src/alerts/alert-module';
import { mentioned } from '../../src/alerts/context';
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

// @ts-expect-error a list with one module twice: its key and its name come twice
everyAlert([dlqNewMessages, dlqBacklog, dlqBacklog]);

// @ts-expect-error two keys that make one name (KafkaRetryTierStuck)
everyAlert([retryTierStuck, defineAlert({ ...retryTierStuck, key: 'tierStuck' })]);

// @ts-expect-error a module whose text mentions an alert by a key its type does not read
defineAlert({ ...dlqBacklog, runbook: (c: AlertedConsumer<'dlqBacklog'>) => ({ condition: mentioned(c, 'dlqNewMesages').name }) });
