/**
 * What tells one DLQ record from another at the same offset (a topic deleted and made
 * again): its timestamp and sizes. The same as recordMark in src/dlq/session.ts, which the
 * audit entries name their record by; written here as the runtime does not import src/dlq
 * (test/runtime/record-mark.test.ts checks they agree).
 */
export function recordMark(message: { readonly timestamp: string; readonly key?: Buffer | null; readonly value?: Buffer | null }): string {
  return `${message.timestamp}/${message.key?.length ?? -1}/${message.value?.length ?? -1}`;
}
