import { kafkaConsoleDlq } from '../../src/console/kafka-dlq';
import { summaryCache } from '../../src/console/summary-cache';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { aConsumer, aTopology, compile } from '../helpers/specs';
import { DlqKafkaDouble } from '../runtime/dlq-kafka-double';

/**
 * The console's counts are carried on from the ends they were counted at while the DLQ only
 * grows. A DLQ topic deleted and made again (a Terraform replace, an operator cleaning up)
 * grows past the old ends with the same log starts and no commit of the replay group: what
 * was counted of the old topic must not be carried into the new one's (attack on #25).
 */
function consumerWithDlq(): { consumer: ConsumerModel; double: DlqKafkaDouble } {
  const consumer = compile(aTopology({ consumers: [aConsumer()] })).model!.topologies[0]!.consumers[0]!;
  const double = new DlqKafkaDouble();
  for (const topic of [consumer.mainTopic, ...consumer.tiers, consumer.dlq, consumer.dlqAudit]) double.createTopic(topic.name, topic.partitions);
  return { consumer, double };
}

function deadLetters(double: DlqKafkaDouble, consumer: ConsumerModel, count: number, errorClass: string, partition = 0): void {
  for (let i = 0; i < count; i++) {
    double.append(consumer.dlq.name, partition, { key: `order-${i}`, value: `{"n":${i}}`, headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.errorClass]: errorClass } });
  }
}

const countsOf = (summary: { unhandled: number; groups: readonly { errorClass: string; count: number }[] }) => ({ unhandled: summary.unhandled, groups: summary.groups.map((g) => [g.errorClass, g.count]) });

describe('the console\'s counts of a DLQ', () => {
  it('count a DLQ topic deleted and made again from scratch, not from the old topic\'s counts', async () => {
    const { consumer, double } = consumerWithDlq();
    deadLetters(double, consumer, 5, 'OldError');
    const dlq = kafkaConsoleDlq(double.kafka());
    const cache = summaryCache(dlq);
    try {
      expect(countsOf((await cache.summary(consumer, {})).summary)).toEqual({ unhandled: 5, groups: [['OldError', 5]] });
      double.createTopic(consumer.dlq.name, consumer.dlq.partitions);
      deadLetters(double, consumer, 7, 'NewError');
      expect(countsOf((await cache.summary(consumer, {})).summary)).toEqual({ unhandled: 7, groups: [['NewError', 7]] });
    } finally {
      await dlq.close?.();
    }
  });

  it('carry a count on while the same topic only grows, and count what it gained', async () => {
    const { consumer, double } = consumerWithDlq();
    deadLetters(double, consumer, 5, 'OldError');
    const dlq = kafkaConsoleDlq(double.kafka());
    const cache = summaryCache(dlq);
    const reads: bigint[] = [];
    const read = dlq.read.bind(dlq);
    // Where each read starts in partition 0: a carried count reads from its last record, not from the start.
    dlq.read = (c, keep, use, scope) => {
      reads.push(scope?.from?.(0) ?? 0n);
      return read(c, keep, use, scope);
    };
    try {
      await cache.summary(consumer, {});
      deadLetters(double, consumer, 2, 'NewError');
      expect(countsOf((await cache.summary(consumer, {})).summary)).toEqual({ unhandled: 7, groups: [['OldError', 5], ['NewError', 2]] });
      expect(reads).toEqual([0n, 4n]);
    } finally {
      await dlq.close?.();
    }
  });

  it('count from scratch a DLQ made again whose old partition held transaction markers only (nothing to mark)', async () => {
    const { consumer, double } = consumerWithDlq();
    for (let i = 0; i < 3; i++) double.appendMarker(consumer.dlq.name, 0);
    const dlq = kafkaConsoleDlq(double.kafka());
    const cache = summaryCache(dlq);
    try {
      expect(countsOf((await cache.summary(consumer, {})).summary)).toEqual({ unhandled: 0, groups: [] });
      double.createTopic(consumer.dlq.name, consumer.dlq.partitions);
      deadLetters(double, consumer, 4, 'NewError');
      expect(countsOf((await cache.summary(consumer, {})).summary)).toEqual({ unhandled: 4, groups: [['NewError', 4]] });
    } finally {
      await dlq.close?.();
    }
  });
});
