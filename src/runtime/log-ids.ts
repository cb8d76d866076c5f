/**
 * The topic id each partition's records were last read under, where the client tells ids
 * (EachMessagePayload.topicId): a record of another id is of a new log, the topic deleted and
 * created again, whatever its offset says. Kept across rebalances and partitions going
 * elsewhere (a log's id does not change with its reader); an id read before and since replaced
 * is not taken for a newer log again.
 */
export type LogIdVerdict = 'same' | 'new-log' | 'unknown';

export class LogIds {
  private readonly lastId = new Map<string, string>();
  private readonly retired = new Map<string, Set<string>>();

  /**
   * What a record (or batch) read under `id` would tell of its partition's log, nothing taken:
   * a caller whose next step may be refused (a seek) judges first and takes the id once that
   * step is done, so a record handed out again after a refusal is judged again (attack 18's class).
   */
  verdict(topic: string, partition: number, id: string | undefined): LogIdVerdict {
    if (id === undefined || this.retired.get(topic)?.has(id)) return 'unknown';
    const last = this.lastId.get(`${topic}\u0000${partition}`);
    return last === undefined || last === id ? 'same' : 'new-log';
  }

  /** What a record (or batch) read under `id` tells of its partition's log, the id taken as the partition's now; an absent id tells nothing. */
  seen(topic: string, partition: number, id: string | undefined): LogIdVerdict {
    if (id === undefined || this.retired.get(topic)?.has(id)) return 'unknown';
    const key = `${topic}\u0000${partition}`;
    const last = this.lastId.get(key);
    this.lastId.set(key, id);
    if (last === undefined || last === id) return 'same';
    const retired = this.retired.get(topic) ?? new Set<string>();
    retired.add(last);
    this.retired.set(topic, retired);
    return 'new-log';
  }
}
