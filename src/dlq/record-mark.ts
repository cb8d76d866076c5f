/** What tells one record from another at the same offset (a topic deleted and made again): its timestamp and sizes. */
export function recordMark(message: { readonly timestamp: string; readonly key: Buffer | null; readonly value: Buffer | null }): string {
  return `${message.timestamp}/${message.key?.length ?? -1}/${message.value?.length ?? -1}`;
}

/** The timestamp (epoch ms) a mark (recordMark) carries; undefined when the record had none that is a time. */
export function markTime(mark: string): number | undefined {
  const ms = Number(mark.slice(0, mark.indexOf('/')));
  return mark.indexOf('/') > 0 && Number.isSafeInteger(ms) && ms >= 0 ? ms : undefined;
}
