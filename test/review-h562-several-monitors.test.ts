import { aConsumer, aTopology } from './helpers/specs';
import { expectAlerts, rulesFileOf } from './helpers/promtool-scenarios';

jest.setTimeout(120_000);

/**
 * The DLQ gauges and the expired counter as a production Prometheus sees them: several
 * monitors of one DLQ at once (the in-process monitor of every replica of a service, or
 * one of them and `krt monitor`), each polling Kafka on its own 30-second clock, and
 * monitors that come and go (a rolling deploy, a crash). Each monitor reads the same
 * Kafka state, so their series tell the same story a poll apart: the rules must not add
 * them up, nor compare one monitor's fresh reading with another's old one.
 */

const C = 'consumer="billing-order-confirmed"';
const DLQ = 'topic="orders.confirmed.dlq"';

/** What one monitor of the consumer exports (the DLQ size and every tier's overdue gauge), in one cluster. */
function monitorOf(cluster: string, values: string): Record<string, string> {
  const tiers = ['1m', '10m', '1h'].map((tier) => [`kafka_retry_tier_overdue_seconds{${C},topic="orders.confirmed.retry.${tier}",partition="0",cluster="${cluster}"}`, values]);
  return Object.fromEntries([[`kafka_dlq_size{${C},${DLQ},cluster="${cluster}"}`, values], ...tiers]);
}


describe('the DLQ alerts with several monitors of one DLQ', () => {
  const money = rulesFileOf(aTopology({ consumers: [aConsumer({ criticality: 'money' })] }));
  const analytics = rulesFileOf(aTopology({ consumers: [aConsumer({ criticality: 'analytics' })] }));

  it('does not page KafkaDlqNewMessages when a replay empties the DLQ and two monitors see it one poll apart', () => {
    // Five records wait; at 20m a replay handles them. pod-a polls first and reads 0 at 20m,
    // pod-b reads 0 a poll later. Nothing reached the DLQ: the routed counters stay at 0.
    expectAlerts(
      money,
      {
        [`kafka_dlq_size{${C},${DLQ},instance="pod-a"}`]: '5x19 0x40',
        [`kafka_dlq_size{${C},${DLQ},instance="pod-b"}`]: '5x20 0x39',
        [`kafka_dlq_routed_total{${C},error_class="permanent-data",instance="pod-a"}`]: '0x60',
        [`kafka_dlq_routed_total{${C},error_class="permanent-data",instance="pod-b"}`]: '0x60',
      },
      [
        { at: '20m', alert: 'KafkaDlqNewMessages', firing: false },
        { at: '21m', alert: 'KafkaDlqNewMessages', firing: false },
        { at: '40m', alert: 'KafkaDlqNewMessages', firing: false },
      ],
    );
  });

  it('still pages the first DLQ record after a rolling deploy, when the new pod routed it and its monitor read it before their first scrape', () => {
    expectAlerts(
      money,
      {
        [`kafka_dlq_size{${C},${DLQ},instance="old-pod"}`]: '0x5 stale',
        [`kafka_dlq_size{${C},${DLQ},instance="new-pod"}`]: '_x5 1x30',
        [`kafka_dlq_routed_total{${C},error_class="permanent-code",instance="new-pod"}`]: '_x5 1x30',
      },
      [{ at: '7m', alert: 'KafkaDlqNewMessages', firing: true }],
    );
  });

  it('still pages records that reach the DLQ while two monitors read it a poll apart', () => {
    expectAlerts(
      money,
      {
        [`kafka_dlq_size{${C},${DLQ},instance="pod-a"}`]: '0x10 1x30',
        [`kafka_dlq_size{${C},${DLQ},instance="pod-b"}`]: '0x11 1x29',
      },
      [
        { at: '9m', alert: 'KafkaDlqNewMessages', firing: false },
        { at: '11m', alert: 'KafkaDlqNewMessages', firing: true },
      ],
    );
  });

  it('counts records retention deleted once, not once per monitor: 400 expired records read by three monitors keep an analytics KafkaDlqRecordsExpired (1000 an hour) quiet', () => {
    const series = Object.fromEntries(['pod-a', 'pod-b', 'krt-monitor'].map((instance) => [`kafka_dlq_expired_total{${C},${DLQ},instance="${instance}"}`, '0x20 400x60']));
    expectAlerts(analytics, series, [
      { at: '25m', alert: 'KafkaDlqRecordsExpired', firing: false },
      { at: '60m', alert: 'KafkaDlqRecordsExpired', firing: false },
    ]);
  });

  it('fires an analytics KafkaDlqRecordsExpired for 1000 expired records in an hour that one monitor saw part of before a rolling deploy replaced it', () => {
    // The monitor's counter is Kafka's expired total: the new pod's starts where the old one ended.
    expectAlerts(
      analytics,
      {
        [`kafka_dlq_expired_total{${C},${DLQ},instance="old-pod"}`]: '0x10 600x10 stale',
        [`kafka_dlq_expired_total{${C},${DLQ},instance="new-pod"}`]: '_x21 600x10 1100x30',
      },
      [{ at: '35m', alert: 'KafkaDlqRecordsExpired', firing: true }],
    );
  });

  it('pages a money record that retention deleted while the monitor restarted: the new monitor starts its counter at Kafka’s expired total', () => {
    // krt monitor is replaced (or crash-loops for a few minutes); retention deletes an
    // unhandled record meanwhile; the new process's first poll creates the counter at 1.
    expectAlerts(
      money,
      {
        [`kafka_dlq_expired_total{${C},${DLQ},instance="10.0.0.7:9835"}`]: '0x10 stale',
        [`kafka_dlq_expired_total{${C},${DLQ},instance="10.0.0.9:9835"}`]: '_x13 1x40',
      },
      [{ at: '16m', alert: 'KafkaDlqRecordsExpired', firing: true }],
    );
  });
});

describe('the absence alerts of one environment among several', () => {
  const rules = rulesFileOf(aTopology({ alerts: { environmentLabels: ['cluster'] }, consumers: [aConsumer({ criticality: 'money' })] }));

  it('keeps KafkaRetryMonitorDown firing for prod while prod’s monitor stays gone for hours and staging’s still exports', () => {
    expectAlerts(
      rules,
      {
        ...monitorOf('prod', '0x10 _x200'),
        ...monitorOf('staging', '0x210'),
      },
      [
        { at: '30m', alert: 'KafkaRetryMonitorDown', firing: true },
        { at: '90m', alert: 'KafkaRetryMonitorDown', firing: true },
        { at: '200m', alert: 'KafkaRetryMonitorDown', firing: true },
      ],
    );
  });

  it('keeps KafkaRetryConsumerDown firing for prod while prod’s services stay gone for hours and staging’s still export', () => {
    expectAlerts(
      rules,
      {
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success",cluster="prod"}`]: '0x10 _x200',
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success",cluster="staging"}`]: '0x210',
      },
      [
        { at: '30m', alert: 'KafkaRetryConsumerDown', firing: true },
        { at: '90m', alert: 'KafkaRetryConsumerDown', firing: true },
      ],
    );
  });
});

describe('the absence alerts of one environment that comes back', () => {
  const rules = rulesFileOf(aTopology({ alerts: { environmentLabels: ['cluster'] }, consumers: [aConsumer({ criticality: 'money' })] }));

  it('fires KafkaRetryMonitorDown for a new cluster whose services run but whose monitor was never deployed, while another cluster’s monitor exports', () => {
    expectAlerts(
      rules,
      {
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success",cluster="prod-eu"}`]: '0x40',
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success",cluster="prod-us"}`]: '0x40',
        ...monitorOf('prod-eu', '0x40'),
      },
      [
        { at: '3m', alert: 'KafkaRetryMonitorDown', firing: false },
        { at: '10m', alert: 'KafkaRetryMonitorDown', firing: true },
        { at: '30m', alert: 'KafkaRetryMonitorDown', firing: true },
      ],
    );
  });

  it('does not fire KafkaRetryConsumerDown for a cluster whose monitor exports but where the consumer is not deployed', () => {
    expectAlerts(
      rules,
      {
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success",cluster="prod"}`]: '0x40',
        [`kafka_dlq_size{${C},${DLQ},cluster="prod"}`]: '0x40',
        [`kafka_dlq_size{${C},${DLQ},cluster="staging"}`]: '0x40',
      },
      [{ at: '30m', alert: 'KafkaRetryConsumerDown', firing: false }],
    );
  });

  it('fires KafkaRetryMonitorDown for the cluster whose monitor lacks a tier the topology added, not for the one whose monitor is current', () => {
    const prod = monitorOf('prod', '0x40');
    delete prod[`kafka_retry_tier_overdue_seconds{${C},topic="orders.confirmed.retry.1h",partition="0",cluster="prod"}`];
    expectAlerts(
      rules,
      {
        ...prod,
        ...monitorOf('staging', '0x40'),
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success",cluster="prod"}`]: '0x40',
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success",cluster="staging"}`]: '0x40',
      },
      // One alert (count 1): prod's.
      [{ at: '30m', alert: 'KafkaRetryMonitorDown', firing: true }],
    );
  });

  it('resolves KafkaRetryMonitorDown for prod once prod’s monitor exports again after hours away', () => {
    expectAlerts(
      rules,
      {
        ...monitorOf('prod', '0x10 _x100 0x30'),
        ...monitorOf('staging', '0x150'),
      },
      [
        { at: '100m', alert: 'KafkaRetryMonitorDown', firing: true },
        { at: '115m', alert: 'KafkaRetryMonitorDown', firing: false },
        { at: '140m', alert: 'KafkaRetryMonitorDown', firing: false },
      ],
    );
  });
});

describe('a monitor that runs an older copy of the topology', () => {
  const money = rulesFileOf(aTopology({ consumers: [aConsumer({ criticality: 'money' })] }));

  it('fires KafkaRetryMonitorDown when the monitor exports the DLQ but not a tier the topology added since (krt monitor not deployed again)', () => {
    // The 1h tier is new: the services route to it, the monitor still runs the old topology.
    const overdue = (tier: string) => `kafka_retry_tier_overdue_seconds{${C},topic="orders.confirmed.retry.${tier}",partition="0"}`;
    expectAlerts(
      money,
      {
        [`kafka_dlq_size{${C},${DLQ}}`]: '0x40',
        [overdue('1m')]: '0x40',
        [overdue('10m')]: '0x40',
        [`kafka_retry_main_lag_seconds{${C},topic="orders.confirmed",partition="0"}`]: '0x40',
        [`kafka_retry_messages_total{${C},topic="orders.confirmed",outcome="success"}`]: '0x40',
      },
      [{ at: '30m', alert: 'KafkaRetryMonitorDown', firing: true }],
    );
  });
});
