import { decodeDlqHeaders } from '../../src/dlq/origin';
import { replayCountOf } from '../../src/dlq/replay-count';
import { replayMessage, replayRoute } from '../../src/dlq/replay-route';
import type { DlqRecord } from '../../src/dlq/session';
import type { ConsumerModel } from '../../src/model/types';
import { PARK_STATE_HEADER } from '../../src/naming/headers';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { ConsumedRecord } from '../../src/runtime/router';
import { httpError, valueOf } from './harness';
import { consumer, T0, tier1m, world } from './park-by-key-world';

/**
 * Found by attack (s27, attack8), fixed (the replay drops x-park-state); was: `krt dlq replay` through the first tier copies the DLQ record's
 * x-park-state (passThroughHeaders keeps it: it is not one of HEADERS), so a record that
 * reached the DLQ under an earlier state of its partition (before the group's offsets expired,
 * or the group was renamed) is replayed as one "written under another state": when it fails
 * again it takes no hold, and its key's newer records run before its retry. docs/runtime.md
 * (Park-by-key) says a replayed record that "goes on to a later tier ... holds its key there,
 * so newer records of the key wait for it". The state of the partition is whole when the
 * replay runs; the DLQ simply outlives states (its retention is usually the longest).
 *
 * Scenario: k:a (offset 0) fails up the ladder into the DLQ; its DLQ copy carries the state's
 * id. The group's offsets then go (here: the consumer runs under a new group, as after
 * `offsets.retention.minutes` or a rename; the new group reads everything once more, all of it
 * succeeding now). The new state is born with another id. `krt dlq replay` sends k:a back
 * through the first tier (replay-route.ts replayMessage, the real headers). It fails once
 * more, into the 10m tier. k:b (a newer record of k) is produced.
 *
 * Seen: the replayed record carries the gone state's id; it runs unjudged, fails, takes no
 * hold (it is "foreign"), and k:b runs at once, before k:a's retry ten minutes later.
 *
 * Code: src/dlq/replay-route.ts `replayMessage` (`...passThroughHeaders(record.headers)` on
 * the tier route keeps PARK_STATE_HEADER); src/runtime/key-parking.ts onTierRecord
 * (`foreign` excludes the hold after `handle()`: `!foreign && ... mayHold(...)`).
 *
 * Class: a provenance marker copied by a tool that makes a new record, so the record claims
 * a provenance it no longer has.
 *
 * Fix I'd make: the replay to the first tier writes the id of the partition's current state
 * (replay already reads the group's committed states for the key-turn check, key-turn.ts),
 * or drops the header, so the replay is this state's to hold; the main-topic route may drop
 * it too (a new record there).
 */

/** Only what the tier route of replayMessage reads of the consumer's model. */
const model = {
  name: consumer.name,
  ordering: 'park-by-key',
  mainTopic: { name: consumer.mainTopic, partitions: 2 },
  tiers: [{ index: 1, name: tier1m!.topic, partitions: 2 }],
  dlq: { name: consumer.dlqTopic },
} as unknown as ConsumerModel;

describe('a DLQ record from before the group\'s offsets went, replayed through the first tier', () => {
  it('holds its key when it fails again, so the key\'s newer record waits for its retry', async () => {
    const w = world();
    w.alwaysFail.add('k:a');
    w.produce('k', 'a'); // offset 0
    const first = await w.start();
    await w.broker.run({ until: T0 + 2 * 3_600_000 }); // 1m + 10m + 1h: into the DLQ
    await first.stop();
    const [dead] = w.broker.records(consumer.dlqTopic, 0);
    expect(dead?.key?.toString()).toBe('k');
    const goneId = dead!.headers[PARK_STATE_HEADER]?.toString();
    expect(goneId).toMatch(/^[A-Za-z0-9_-]{8}$/);

    // The group's offsets gone: the consumer runs as a new group (everything is read once more, and succeeds).
    w.alwaysFail.delete('k:a');
    const newGroup = { ...consumer, groups: { ...consumer.groups, main: `${consumer.groups.main}.v2`, retry: `${consumer.groups.main}.v2` } };
    const second = createRetryingConsumer(newGroup, {
      kafka: w.broker.port(),
      clock: w.clock,
      random: () => 0.5,
      onEvent: (e) => w.events.push(e),
      handler: async (record: ConsumedRecord) => {
        const label = `${record.message.key?.toString()}:${valueOf(record)}`;
        if (w.failOnce.delete(label)) {
          w.handled.push(`${label} FAIL`);
          throw httpError(503);
        }
        w.handled.push(label);
      },
    });
    await second.start();
    w.clock.setTimer(60_000, () => undefined);
    await w.broker.run({ until: T0 + 2 * 3_600_000 + 60_000 });
    const bornAgain = BigInt(w.broker.committedOffset(newGroup.groups.main, consumer.mainTopic, 0) ?? 0);
    expect(bornAgain).toBe(1n);

    // krt dlq replay, through the first tier: it fails once more there.
    const record: DlqRecord = { id: '0:0', partition: 0, offset: 0n, timestamp: T0, key: dead!.key, value: dead!.value, headers: dead!.headers, decoded: decodeDlqHeaders(dead!.headers), replayCount: replayCountOf(dead!.headers) };
    const replayed = replayMessage(model, replayRoute(model), record, w.clock.now());
    expect((replayed.headers as Record<string, unknown>)[PARK_STATE_HEADER]).toBeUndefined(); // no state's id: judged as a replay
    w.failOnce.add('k:a');
    w.broker.append(tier1m!.topic, { ...replayed, partition: 0 });
    w.clock.setTimer(10_000, () => undefined);
    await w.broker.run({ until: w.clock.now() + 10_000 }); // the replay ran and failed into the 10m tier
    const ranBefore = w.handled.length;
    w.produce('k', 'b'); // a newer record of k
    w.clock.setTimer(3_600_000, () => undefined);
    await w.broker.run({ until: w.clock.now() + 3_600_000 });
    await second.stop();

    // Seen: ['k:a FAIL', 'k:b', 'k:a']: k:b ran at once, k:a's retry ten minutes later. (With the header dropped from the replay, as the fix would, this passes.)
    expect(w.handled.slice(ranBefore - 1)).toEqual(['k:a FAIL', 'k:a', 'k:b']);
  });
});
