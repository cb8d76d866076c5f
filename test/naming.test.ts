import { ALERT_MODULES } from '../src/alerts';
import {
  ALERT_KEY_PATTERN,
  ALERT_NAME_PATTERN,
  alertName,
  dlqTopicName,
  metricCollisionKey,
  replayGroupName,
  retryGroupName,
  retryTopicName,
  runbookAnchor,
  runbookUrl,
  topicNameProblem,
  topicResourceId,
} from '../src/naming';

describe('naming', () => {
  it('names a retry tier after its topic and delay label', () => {
    expect(retryTopicName('orders.confirmed', 60_000, 'default')).toBe('orders.confirmed.retry.1m');
    expect(retryTopicName('orders.confirmed', 90_000, 'default')).toBe('orders.confirmed.retry.90s');
    expect(retryTopicName('orders.confirmed', 86_400_000, 'default')).toBe('orders.confirmed.retry.1d');
  });

  it('names the DLQ {topic}.dlq', () => {
    expect(dlqTopicName('orders.confirmed', 'default')).toBe('orders.confirmed.dlq');
  });

  it('names topics the way Spring Kafka does when asked to', () => {
    expect(retryTopicName('orders.confirmed', 60_000, 'spring')).toBe('orders.confirmed-retry-60000');
    expect(dlqTopicName('orders.confirmed', 'spring')).toBe('orders.confirmed-dlt');
  });

  it('derives the retry and replay groups from the main group', () => {
    expect(retryGroupName('billing-order-confirmed')).toBe('billing-order-confirmed.retry');
    expect(replayGroupName('billing-order-confirmed')).toBe('billing-order-confirmed.dlq-replay');
  });

  it('links an alert to the lower-cased anchor of its runbook section', () => {
    expect(runbookAnchor('dlqNewMessages')).toBe('kafkadlqnewmessages');
    expect(runbookUrl('https://runbooks.example.com/kafka/', 'billing-order-confirmed', 'retryTierStuck')).toBe(
      'https://runbooks.example.com/kafka/billing-order-confirmed.md#kafkaretrytierstuck',
    );
  });

  it('accepts legal topic names and explains illegal ones', () => {
    expect(topicNameProblem('orders.confirmed_v2-eu')).toBeUndefined();
    expect(topicNameProblem('orders confirmed')).toContain("use only letters, digits, '.', '_' and '-'");
    expect(topicNameProblem('..')).toContain('reserved');
    expect(topicNameProblem('a'.repeat(249))).toBeUndefined();
    expect(topicNameProblem('a'.repeat(250))).toContain('at most 249');
  });

  it("treats '.' and '_' as the same in metric names", () => {
    expect(metricCollisionKey('orders.confirmed')).toBe(metricCollisionKey('orders_confirmed'));
  });

  it('gives Terraform addresses that are legal identifiers', () => {
    expect(topicResourceId('orders.confirmed.retry.1m')).toBe('orders_confirmed_retry_1m');
    expect(topicResourceId('2024.orders')).toBe('_2024_orders');
  });
});

describe('alert names', () => {
  it('are Kafka, then Retry unless the key names the DLQ or a retry part, then the key capitalized: the same in the type and the function', () => {
    // Each line also checks the type: the name the compiler gives is the one the function returns.
    const names: readonly string[] = [
      alertName('dlqBacklog') satisfies 'KafkaDlqBacklog',
      alertName('retryTierStuck') satisfies 'KafkaRetryTierStuck',
      alertName('consumerDown') satisfies 'KafkaRetryConsumerDown',
      alertName('dlq2Backlog') satisfies 'KafkaRetryDlq2Backlog',
      alertName('dlq') satisfies 'KafkaRetryDlq',
      alertName('dlqbacklog') satisfies 'KafkaRetryDlqbacklog',
      alertName('retry') satisfies 'KafkaRetryRetry',
    ];
    expect(names).toEqual(['KafkaDlqBacklog', 'KafkaRetryTierStuck', 'KafkaRetryConsumerDown', 'KafkaRetryDlq2Backlog', 'KafkaRetryDlq', 'KafkaRetryDlqbacklog', 'KafkaRetryRetry']);
  });

  it('of every alert module: a camelCase key and a name Prometheus and the runbook anchors take as they are', () => {
    for (const alert of ALERT_MODULES) {
      expect(alert.key).toMatch(ALERT_KEY_PATTERN);
      expect(alert.name).toMatch(ALERT_NAME_PATTERN);
    }
  });
});
