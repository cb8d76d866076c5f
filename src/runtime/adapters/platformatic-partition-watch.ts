/**
 * @platformatic/kafka 2.12's classic-protocol consumer joins its group again only on a
 * heartbeat error, a commit refused for its generation or consume() of a new topic: in a
 * stable group, partitions added to a subscribed topic would stay unassigned (never read).
 * The watch compares each subscribed topic's partition count at every metadata lookup the
 * fetch gate makes (the client refreshes its cache every `metadataMaxAge`, 5 s by default)
 * and asks for a rejoin when one grew, as kafkajs's group leader and librdkafka do.
 */
export interface PartitionCountWatch {
  /** The topics' metadata as the client gave it; `partitionsCount` absent is ignored. */
  observe(topics: ReadonlyMap<string, { readonly partitionsCount?: number }>): void;
}

export function createPartitionCountWatch(rejoin: () => void): PartitionCountWatch {
  const counts = new Map<string, number>();
  return {
    observe(topics) {
      let grew = false;
      for (const [topic, { partitionsCount }] of topics) {
        if (partitionsCount === undefined) continue;
        const known = counts.get(topic);
        if (known !== undefined && partitionsCount > known) grew = true;
        if (known === undefined || partitionsCount > known) counts.set(topic, partitionsCount);
      }
      if (grew) rejoin();
    },
  };
}
