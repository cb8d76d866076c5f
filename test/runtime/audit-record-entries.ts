import type { DlqKafkaDouble } from './dlq-kafka-double';

/**
 * The audit log's entries that name a record (`replayed`, `discarded`), without the floor
 * each step also writes per partition (`handled-below`) or the ranges of markers it passed:
 * what a test counts when it asks which records were audited, and how often.
 */
export function recordEntries(double: DlqKafkaDouble, auditTopic: string): ReturnType<DlqKafkaDouble['messages']> {
  return double.messages(auditTopic).filter((m) => {
    const action = (JSON.parse(m.value!.toString()) as { action?: unknown }).action;
    return action === 'replayed' || action === 'discarded';
  });
}
