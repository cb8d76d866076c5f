/** What the monitor reads from Kafka: offsets through the admin API, one record per DLQ partition. */
export interface MonitorPort {
  endOffsets(topic: string): Promise<{ partition: number; low: string; high: string }[]>;
  committedOffsets(groupId: string, topic: string): Promise<{ partition: number; offset: string; metadata: string | null }[]>;
  /**
   * The timestamp (epoch ms) of the first record at or after each offset: retention may
   * delete the one asked for meanwhile. A partition not read is left out. A partition whose
   * `end` is given and that was read to it without a record at or after the offset maps to
   * null: only transaction markers or aborted records are there (a transactional producer's
   * commit marker after the last record), and waiting would bring none. A read under way
   * when `signal` aborts (the monitor stops) ends at once, rejecting with its reason.
   */
  timestampsAt(topic: string, offsets: { partition: number; offset: string; end?: string }[], signal?: AbortSignal): Promise<Map<number, number | null>>;
  /**
   * The records of `topic` from each partition's offset in `from` (a partition not in it,
   * or one whose offset retention deleted: from its log start) up to its end offset when
   * the read starts. Values as UTF-8 text. A read that runs out of time gives what it has,
   * `complete: false`. The monitor reads the DLQ audit log with it when Kafka deleted the
   * replay group's commits; a port without it cannot, and those partitions read as nothing
   * handled.
   */
  readFrom?(topic: string, from: ReadonlyMap<number, string>, signal?: AbortSignal): Promise<TopicRead>;
  /**
   * The marks (record-mark.ts) of the records of `topic` from `from` to `to` (inclusive) of
   * each partition in `ranges`. The monitor checks with them that an audit entry names the
   * record the DLQ holds at its offset now, not one of a DLQ deleted and created again; a
   * port without it cannot, and those entries are taken as they are.
   */
  marksAt?(topic: string, ranges: ReadonlyMap<number, { from: bigint; to: bigint }>, signal?: AbortSignal): Promise<MarksRead>;
  /**
   * The topic's id (topic-id.ts), or undefined where the client reads none. The monitor tells
   * with it the audit entries about the DLQ as it is now from those of a DLQ deleted and
   * created again (entries name the id the command read: `dlqTopicId`); a port without it, or
   * one that reads no id, leaves that to the records' marks.
   */
  topicId?(topic: string): Promise<string | undefined>;
}

/** What `marksAt` read. */
export interface MarksRead {
  /** The mark of each record read, by partition and offset. */
  readonly marks: ReadonlyMap<number, ReadonlyMap<bigint, string>>;
  /** Each partition's offset after the last one the read covered (`to` + 1 once read to it): a read out of time covers less. */
  readonly readTo: ReadonlyMap<number, bigint>;
}

/** What `readFrom` read. */
export interface TopicRead {
  readonly records: readonly { readonly partition: number; readonly offset: string; readonly value: string }[];
  /** Where the next read of each partition starts: its end offset when the read started, once read to it. */
  readonly ends: ReadonlyMap<number, string>;
  /** False when the read ran out of time before every partition's end; absent means true. */
  readonly complete?: boolean;
}
