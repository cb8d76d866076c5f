/** What the monitor reads from Kafka: offsets through the admin API, one record per DLQ partition. */
export interface MonitorPort {
  endOffsets(topic: string): Promise<{ partition: number; low: string; high: string }[]>;
  committedOffsets(groupId: string, topic: string): Promise<{ partition: number; offset: string; metadata: string | null }[]>;
  /**
   * The timestamp (epoch ms) of the first record at or after each offset: retention may
   * delete the one asked for meanwhile. A partition without one is left out. A read under
   * way when `signal` aborts (the monitor stops) ends at once, rejecting with its reason.
   */
  timestampsAt(topic: string, offsets: { partition: number; offset: string }[], signal?: AbortSignal): Promise<Map<number, number>>;
}
