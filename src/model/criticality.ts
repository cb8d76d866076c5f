import type { AlertKey } from '../naming';
import type { Criticality } from '../spec/types';
import type { AlertPolicy } from './types';

const MINUTE = 60_000;

/**
 * Alert presets per criticality (R16). Thresholds, by alert:
 * - dlqNewMessages: records that reached the DLQ in the last 10 minutes;
 * - dlqBacklog: unhandled DLQ records;
 * - dlqOldestMessageAge: age of the oldest unhandled DLQ record, as a share of the DLQ retention;
 * - retryTierStuck: how many times its own delay a tier's records are overdue;
 * - retryRateSpike: share of finished records that were sent to retry;
 * - dlqRecordsExpired: unhandled DLQ records deleted by retention in the last hour (each one is lost);
 * - mainConsumerLag: seconds since the main group's next record was written;
 * - consumerDown, monitorDown: no threshold; how long the metrics may be missing.
 */
export const CRITICALITY_PRESETS: Readonly<Record<Criticality, Readonly<Record<AlertKey, AlertPolicy>>>> = {
  money: {
    dlqNewMessages: { threshold: 1, forMs: 0, severity: 'critical' },
    dlqBacklog: { threshold: 1, forMs: 30 * MINUTE, severity: 'critical' },
    dlqOldestMessageAge: { threshold: 0.25, forMs: 0, severity: 'critical' },
    retryTierStuck: { threshold: 3, forMs: 5 * MINUTE, severity: 'critical' },
    retryRateSpike: { threshold: 0.05, forMs: 10 * MINUTE, severity: 'critical' },
    dlqRecordsExpired: { threshold: 1, forMs: 0, severity: 'critical' },
    mainConsumerLag: { threshold: 300, forMs: 5 * MINUTE, severity: 'critical' },
    consumerDown: { threshold: 0, forMs: 5 * MINUTE, severity: 'critical' },
    monitorDown: { threshold: 0, forMs: 5 * MINUTE, severity: 'critical' },
  },
  standard: {
    dlqNewMessages: { threshold: 10, forMs: 0, severity: 'warning' },
    dlqBacklog: { threshold: 100, forMs: 30 * MINUTE, severity: 'warning' },
    dlqOldestMessageAge: { threshold: 0.5, forMs: 0, severity: 'warning' },
    retryTierStuck: { threshold: 5, forMs: 10 * MINUTE, severity: 'warning' },
    retryRateSpike: { threshold: 0.1, forMs: 10 * MINUTE, severity: 'warning' },
    dlqRecordsExpired: { threshold: 1, forMs: 0, severity: 'critical' },
    mainConsumerLag: { threshold: 900, forMs: 10 * MINUTE, severity: 'warning' },
    consumerDown: { threshold: 0, forMs: 10 * MINUTE, severity: 'warning' },
    monitorDown: { threshold: 0, forMs: 10 * MINUTE, severity: 'warning' },
  },
  analytics: {
    dlqNewMessages: { threshold: 1000, forMs: 0, severity: 'warning' },
    dlqBacklog: { threshold: 1000, forMs: 60 * MINUTE, severity: 'warning' },
    dlqOldestMessageAge: { threshold: 0.5, forMs: 0, severity: 'warning' },
    retryTierStuck: { threshold: 10, forMs: 15 * MINUTE, severity: 'warning' },
    retryRateSpike: { threshold: 0.25, forMs: 15 * MINUTE, severity: 'warning' },
    dlqRecordsExpired: { threshold: 1000, forMs: 0, severity: 'warning' },
    mainConsumerLag: { threshold: 3600, forMs: 15 * MINUTE, severity: 'warning' },
    consumerDown: { threshold: 0, forMs: 15 * MINUTE, severity: 'warning' },
    monitorDown: { threshold: 0, forMs: 15 * MINUTE, severity: 'warning' },
  },
};
