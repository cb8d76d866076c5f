import type { ConsumerPort, EachBatchPayload, KafkaPort, PortMessage } from '../../src/runtime/port';

/** The value of a record that stands for a control record (a transaction's marker, an aborted record): consumers never see it. */
export const CONTROL_RECORD = 'control-record';

/**
 * `port` whose consumers hand each batch through `map` first: what it returns is handed out;
 * undefined, nothing is (the client moves past the batch, as past markers it skips).
 */
export function mappingBatches(port: KafkaPort, map: (batch: EachBatchPayload) => EachBatchPayload | undefined): KafkaPort {
  return {
    producer: port.producer,
    consumer: (groupId, options): ConsumerPort => {
      const inner = port.consumer(groupId, options);
      return {
        connect: () => inner.connect(),
        disconnect: () => inner.disconnect(),
        subscribe: (s) => inner.subscribe(s),
        pause: (p) => inner.pause(p),
        resume: (p) => inner.resume(p),
        seek: (p) => inner.seek(p),
        commitOffsets: (o) => inner.commitOffsets(o),
        committed: (t, p) => inner.committed(t, p),
        ...(inner.logStartOffsets ? { logStartOffsets: (t: string, p: number[]) => inner.logStartOffsets!(t, p) } : {}),
        carriesCommitMetadata: inner.carriesCommitMetadata,
        onRebalance: (l) => inner.onRebalance(l),
        run: (run) => {
          if (!('eachBatch' in run)) return inner.run(run);
          return inner.run({
            ...run,
            eachBatch: async (batch) => {
              const mapped = map(batch);
              if (mapped === undefined) return batch.resolveOffset(batch.messages[batch.messages.length - 1]!.offset);
              return run.eachBatch(mapped);
            },
          });
        },
      };
    },
  };
}

/** `port` whose consumers never hand out the records `hidden` says, as if the log had none there. */
export function hidingRecords(port: KafkaPort, hidden: (message: PortMessage) => boolean): KafkaPort {
  return mappingBatches(port, (batch) => {
    const messages = batch.messages.filter((m) => !hidden(m));
    return messages.length === 0 ? undefined : { ...batch, messages };
  });
}

/**
 * `port` whose consumers never hand out a record valued CONTROL_RECORD, as the real clients
 * skip a transactional producer's markers (and compaction removes records): an offset of the
 * log that no batch starts at. The in-memory broker has no such offsets.
 */
export function hidingControlRecords(port: KafkaPort): KafkaPort {
  return hidingRecords(port, (m) => m.value?.toString() === CONTROL_RECORD);
}

/** `port` whose batches do not tell the partition's high watermark (as @platformatic/kafka's adapter). */
export function withoutHighWatermark(port: KafkaPort): KafkaPort {
  return mappingBatches(port, ({ highWatermark: _unknown, ...batch }) => batch);
}
