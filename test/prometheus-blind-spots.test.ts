import { aConsumer, aTopology } from './helpers/specs';
import { expectAlerts, promtoolRun, rulesFileOf } from './helpers/promtool-scenarios';

jest.setTimeout(120_000);

/**
 * Scenarios that look like production (restarts, gaps, low traffic, several clusters),
 * run by promtool against the rules the generator emits: each is a way the alerts could
 * go silent while records are stuck or lost.
 */

const money = aTopology({ consumers: [aConsumer({ criticality: 'money' })] });
const C = 'consumer="billing-order-confirmed"';

describe('the generated alerts have no blind spots', () => {
  const rules = rulesFileOf(money);

  it('fires KafkaRetryConsumerDown when the service stops exporting metrics, and when it never did', () => {
    expectAlerts(rules, { [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success"}`]: '0x10 _x30' }, [
      { at: '12m', alert: 'KafkaRetryConsumerDown', firing: false },
      { at: '25m', alert: 'KafkaRetryConsumerDown', firing: true },
    ]);
    expectAlerts(rules, { [`kafka_dlq_size{${C},topic="orders.confirmed.dlq"}`]: '0x20' }, [{ at: '10m', alert: 'KafkaRetryConsumerDown', firing: true }]);
  });

  it('fires KafkaRetryMonitorDown when the DLQ gauges stop, so a forgotten monitor is noticed', () => {
    // A running monitor exports the DLQ size and every tier's overdue gauge.
    const tiers = Object.fromEntries(['1m', '10m', '1h'].map((tier) => [`kafka_retry_tier_overdue_seconds{${C},topic="orders.confirmed.retry.${tier}",partition="0"}`, '0x10 _x30']));
    expectAlerts(rules, { [`kafka_dlq_size{${C},topic="orders.confirmed.dlq"}`]: '0x10 _x30', ...tiers }, [
      { at: '12m', alert: 'KafkaRetryMonitorDown', firing: false },
      { at: '25m', alert: 'KafkaRetryMonitorDown', firing: true },
    ]);
  });

  // `stale` is the marker Prometheus writes when a target's scrape fails, as during a restart.
  it('keeps counting a money backlog through a monitor restart: it pages 30 minutes after the record, not 30 after the restart', () => {
    expectAlerts(rules, { [`kafka_dlq_size{${C},topic="orders.confirmed.dlq"}`]: '1x20 stale 1x30' }, [
      { at: '29m', alert: 'KafkaDlqBacklog', firing: false },
      { at: '32m', alert: 'KafkaDlqBacklog', firing: true },
    ]);
  });

  it('pages a stuck 1h tier even though the monitor restarts more often than the stall lasts', () => {
    // The head is 10000 s overdue at 0 and one second more each second; the threshold is 3h (10800 s).
    expectAlerts(rules, { [`kafka_retry_tier_overdue_seconds{${C},topic="orders.confirmed.retry.1h",partition="3"}`]: '10000+60x10 stale 10660+60x20' }, [
      { at: '25m', alert: 'KafkaRetryTierStuck', firing: true },
    ]);
  });

  it('keeps one unhandled money record one continuous incident: KafkaDlqNewMessages holds until KafkaDlqBacklog fires', () => {
    const series = {
      [`kafka_dlq_routed_total{${C},error_class="permanent-data"}`]: '0x5 1x60',
      [`kafka_dlq_size{${C},topic="orders.confirmed.dlq"}`]: '0x5 1x60',
    };
    const minutes = Array.from({ length: 40 }, (_, i) => i + 7);
    const output = promtoolRun(
      rules,
      series,
      minutes.map((m) => ({ at: `${m}m`, alert: m < 37 ? 'KafkaDlqNewMessages' : 'KafkaDlqBacklog', firing: true })),
    );
    expect(output).not.toContain('FAILED');
  });

  it('pages the first DLQ record after a restart even when it was routed before the first scrape', () => {
    expectAlerts(
      rules,
      {
        [`kafka_dlq_routed_total{${C},error_class="permanent-code",instance="new-pod"}`]: '_x5 1x30',
        [`kafka_dlq_size{${C},topic="orders.confirmed.dlq"}`]: '0x5 1x30',
      },
      [{ at: '7m', alert: 'KafkaDlqNewMessages', firing: true }],
    );
  });

  it('finds one stuck partition in a tier whose other partitions are busy and on time', () => {
    expectAlerts(
      rules,
      {
        [`kafka_retry_tier_overdue_seconds{${C},topic="orders.confirmed.retry.1m",partition="0"}`]: '0x30',
        [`kafka_retry_tier_overdue_seconds{${C},topic="orders.confirmed.retry.1m",partition="1"}`]: '0+60x30',
        [`kafka_retry_tier_lag{${C},topic="orders.confirmed.retry.1m"}`]: '5x30',
        [`kafka_retry_messages_total{${C},topic="orders.confirmed.retry.1m",outcome="success"}`]: '0+20x30',
      },
      [{ at: '12m', alert: 'KafkaRetryTierStuck', firing: true }],
    );
  });

  it('watches the main consumer: a group 10 minutes behind on money events pages', () => {
    expectAlerts(rules, { [`kafka_retry_main_lag_seconds{${C},topic="orders.confirmed",partition="0"}`]: '600x20' }, [
      { at: '3m', alert: 'KafkaRetryMainConsumerLag', firing: false },
      { at: '10m', alert: 'KafkaRetryMainConsumerLag', firing: true },
    ]);
  });

  it('does not read 130 s of lateness in the 1m tier as past its 180 s limit because of histogram buckets', () => {
    const bucket = (le: string) => `kafka_retry_delivery_lateness_seconds_bucket{${C},tier="1m",le="${le}"}`;
    expectAlerts(
      rules,
      {
        [`kafka_retry_tier_overdue_seconds{${C},topic="orders.confirmed.retry.1m",partition="0"}`]: '130x30',
        [bucket('120')]: '0x30',
        [bucket('300')]: '0+60x30',
        [bucket('+Inf')]: '0+60x30',
      },
      [{ at: '25m', alert: 'KafkaRetryTierStuck', firing: false }],
    );
  });

  it('does not flap at about one record a minute: half of them retried keeps KafkaRetryRateSpike firing', () => {
    // 8 records every 9 minutes: ten-minute counts waver around 10.
    const perMinute = [1, 1, 0, 1, 1, 2, 0, 1, 1];
    let total = 0;
    const counts = Array.from({ length: 70 }, (_, i) => (total += perMinute[i % perMinute.length]!));
    const ramp = (share: number) => counts.map((n) => n * share).join(' ');
    const minutes = Array.from({ length: 15 }, (_, i) => `${i + 40}m`);
    expectAlerts(
      rules,
      {
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="retry"}`]: ramp(0.5),
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success"}`]: ramp(0.5),
      },
      minutes.map((at) => ({ at, alert: 'KafkaRetryRateSpike', firing: true })),
    );
  });

  it('keeps environments apart: a DLQ record in prod fires for prod only, and a staging service that stops is noticed', () => {
    const rulesWithEnvironments = rulesFileOf(aTopology({ alerts: { environmentLabels: ['cluster'] }, consumers: [aConsumer({ criticality: 'money' })] }));
    expectAlerts(
      rulesWithEnvironments,
      {
        [`kafka_dlq_size{${C},topic="orders.confirmed.dlq",cluster="prod"}`]: '1x50',
        [`kafka_dlq_size{${C},topic="orders.confirmed.dlq",cluster="staging"}`]: '0x50',
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success",cluster="prod"}`]: '0x50',
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success",cluster="staging"}`]: '0x10 _x40',
      },
      [
        { at: '40m', alert: 'KafkaDlqBacklog', firing: { cluster: 'prod' } },
        { at: '40m', alert: 'KafkaRetryConsumerDown', firing: { cluster: 'staging' } },
      ],
    );
  });
});
