import type { Kafka } from 'kafkajs';
import type { ConsumerModel } from '../model/types';
import { decodeParkState, keyHash } from '../runtime/park-state';
import type { ParkState } from '../runtime/park-state';
import { retryingRetriable } from './retriable';
import type { DlqRecord } from './session';

/** A record that must not be replayed through the tier now, and why. */
export interface WaitingRecord {
  readonly record: DlqRecord;
  readonly reason: string;
}

/**
 * Park-by-key records whose key is busy in the main group's committed state: a record of
 * the key in retry, or records parked behind one. A tier record runs as soon as it is
 * due, whatever its key's state (key-parking only matches it against the retry holding
 * the key), so replayed now it would overtake them; it waits in the DLQ instead, for a
 * later run. The state read is the last committed one: the consumer commits it with every
 * main record, so a key that became busy since is busy with a record read after this
 * check, which the replay may precede as it precedes records not read yet.
 */
export async function recordsWaitingForTheirKey(kafka: Kafka, consumer: ConsumerModel, records: readonly DlqRecord[]): Promise<WaitingRecord[]> {
  const keyed = records.filter((r) => r.key !== null);
  if (consumer.ordering !== 'park-by-key' || keyed.length === 0) return [];
  const states = await parkStates(kafka, consumer);
  const waiting: WaitingRecord[] = [];
  for (const record of keyed) {
    const partition = record.decoded.originalPartition;
    const state = partition === undefined ? undefined : states.get(partition);
    if (!state) continue;
    const hash = keyHash(record.key);
    const holder = state.held.get(hash);
    const parked = [...state.parked.values()].filter((h) => h === hash).length;
    if (holder !== undefined) waiting.push({ record, reason: `its key is in retry (offset ${holder} of ${consumer.mainTopic.name}[${partition}])${parked > 0 ? ` with ${parked} parked behind it` : ''}` });
    else if (parked > 0) waiting.push({ record, reason: `${parked === 1 ? '1 record' : `${parked} records`} of its key ${parked === 1 ? 'waits' : 'wait'} parked on ${consumer.mainTopic.name}[${partition}]` });
  }
  return waiting;
}

async function parkStates(kafka: Kafka, consumer: ConsumerModel): Promise<Map<number, ParkState>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [committed] = await retryingRetriable(() => admin.fetchOffsets({ groupId: consumer.groups.main, topics: [consumer.mainTopic.name] }));
    return new Map((committed?.partitions ?? []).map((p) => [p.partition, decodeParkState(/^\d+$/.test(p.offset) ? BigInt(p.offset) : 0n, p.metadata)]));
  } finally {
    await admin.disconnect();
  }
}
