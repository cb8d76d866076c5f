/**
 * What tells one DLQ record from another at the same offset (a topic deleted and made
 * again): its timestamp and sizes. Audit entries name their record by it (src/dlq/session.ts),
 * and the DLQ tools and the monitor read it from the log to tell an entry of an earlier
 * topic of the same name.
 */
export function recordMark(message: { readonly timestamp: string; readonly key?: Buffer | null; readonly value?: Buffer | null }): string {
  return `${message.timestamp}/${message.key?.length ?? -1}/${message.value?.length ?? -1}`;
}

/** The timestamp (epoch ms) a mark (recordMark) carries; undefined when the record had none that is a time. */
export function markTime(mark: string): number | undefined {
  const ms = Number(mark.slice(0, mark.indexOf('/')));
  return mark.indexOf('/') > 0 && Number.isSafeInteger(ms) && ms >= 0 ? ms : undefined;
}
