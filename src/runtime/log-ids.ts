/**
 * The topic id each partition's records were last read under, where the client tells ids
 * (EachMessagePayload.topicId): a record of another id is of a new log, the topic deleted and
 * created again, whatever its offset says. Kept across rebalances and partitions going
 * elsewhere (a log's id does not change with its reader); an id read before and since replaced
 * is not taken for a newer log again.
 */
export type LogIdVerdict = 'same' | 'new-log' | 'unknown';

/**
 * The id each key (a partition, or a whole topic) was last seen under, and the ids each topic
 * has had and lost: an absent id, or one since replaced (a stale answer), tells nothing.
 */
class IdSuccession {
  private readonly lastId = new Map<string, string>();
  private readonly retired = new Map<string, Set<string>>();

  verdict(topic: string, key: string, id: string | undefined): LogIdVerdict {
    if (id === undefined || this.retired.get(topic)?.has(id)) return 'unknown';
    const last = this.lastId.get(key);
    return last === undefined || last === id ? 'same' : 'new-log';
  }

  seen(topic: string, key: string, id: string | undefined): LogIdVerdict {
    const verdict = this.verdict(topic, key, id);
    if (verdict === 'unknown') return verdict;
    if (verdict === 'new-log') this.retired.set(topic, (this.retired.get(topic) ?? new Set<string>()).add(this.lastId.get(key)!));
    this.lastId.set(key, id!);
    return verdict;
  }

  last(key: string): string | undefined {
    return this.lastId.get(key);
  }
}

export class LogIds {
  private readonly ids = new IdSuccession();

  /**
   * What a record (or batch) read under `id` would tell of its partition's log, nothing taken:
   * a caller whose next step may be refused (a seek) judges first and takes the id once that
   * step is done, so a record handed out again after a refusal is judged again (attack 18's class).
   */
  verdict(topic: string, partition: number, id: string | undefined): LogIdVerdict {
    return this.ids.verdict(topic, `${topic}\u0000${partition}`, id);
  }

  /** What a record (or batch) read under `id` tells of its partition's log, the id taken as the partition's now; an absent id tells nothing. */
  seen(topic: string, partition: number, id: string | undefined): LogIdVerdict {
    return this.ids.seen(topic, `${topic}\u0000${partition}`, id);
  }
}

/**
 * The id each topic was last read under, for an adapter that reads ids per topic (the
 * Confluent adapter's poll, the @platformatic/kafka fetch gate): `seen` says 'new-log' once
 * when the topic was created again.
 */
export class TopicIds {
  private readonly ids = new IdSuccession();

  seen(topic: string, id: string | undefined): LogIdVerdict {
    return this.ids.seen(topic, topic, id);
  }

  /** The topic's id read last; undefined before one was read. */
  idOf(topic: string): string | undefined {
    return this.ids.last(topic);
  }
}
