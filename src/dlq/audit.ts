import type { Producer } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import type { DlqRecord } from './session';

export interface AuditEntry {
  readonly action: 'replayed' | 'discarded';
  readonly by: string;
  readonly reason?: string;
}

/** Appends one decision to the consumer's DLQ audit log and waits for the acknowledgement. */
export async function audit(producer: Producer, consumer: ConsumerModel, record: DlqRecord, entry: AuditEntry, now: number): Promise<void> {
  await producer.send({
    topic: consumer.dlqAudit.name,
    acks: -1,
    messages: [
      {
        key: record.id,
        value: JSON.stringify({
          ...entry,
          at: new Date(now).toISOString(),
          consumer: consumer.name,
          dlqTopic: consumer.dlq.name,
          partition: record.partition,
          offset: record.offset.toString(),
          originalTopic: record.decoded.originalTopic ?? null,
          errorClass: record.decoded.errorClass ?? null,
        }),
      },
    ],
  });
}
