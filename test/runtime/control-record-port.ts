import type { ConsumerPort, KafkaPort, PortMessage } from '../../src/runtime/port';

/** The value of a record that stands for a control record (a transaction's marker, an aborted record): consumers never see it. */
export const CONTROL_RECORD = 'control-record';

const shown = (m: PortMessage) => m.value?.toString() !== CONTROL_RECORD;

/**
 * `port` whose consumers never hand out a record valued CONTROL_RECORD, as the real clients
 * skip a transactional producer's markers (and compaction removes records): an offset of the
 * log that no batch starts at. The in-memory broker has no such offsets.
 */
export function hidingControlRecords(port: KafkaPort): KafkaPort {
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
        carriesCommitMetadata: inner.carriesCommitMetadata,
        onRebalance: (l) => inner.onRebalance(l),
        run: (run) => {
          if (!('eachBatch' in run)) return inner.run(run);
          return inner.run({
            ...run,
            eachBatch: async (batch) => {
              const messages = batch.messages.filter(shown);
              // Control records only: the client moves past them and hands out nothing.
              if (messages.length === 0) return batch.resolveOffset(batch.messages[batch.messages.length - 1]!.offset);
              return run.eachBatch({ ...batch, messages });
            },
          });
        },
      };
    },
  };
}

/** `port` whose batches do not tell the partition's high watermark (as @platformatic/kafka's adapter). */
export function withoutHighWatermark(port: KafkaPort): KafkaPort {
  return {
    producer: port.producer,
    consumer: (groupId, options): ConsumerPort => {
      const inner = port.consumer(groupId, options);
      return Object.assign(Object.create(inner) as ConsumerPort, {
        run: (run: Parameters<ConsumerPort['run']>[0]) => {
          if (!('eachBatch' in run)) return inner.run(run);
          return inner.run({ ...run, eachBatch: ({ highWatermark: _unknown, ...batch }) => run.eachBatch(batch) });
        },
      });
    },
  };
}
