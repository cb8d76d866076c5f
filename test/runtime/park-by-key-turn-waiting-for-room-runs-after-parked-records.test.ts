import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';
import { PARTITIONS } from './fault-scenarios';

/**
 * Found by the attack-12 replay property (its lossy half, kafkajs, seed 15015, 1,500 runs):
 * a LOST record, its tier records stuck in memory behind a turn nothing ran.
 *
 * Scenario: C@0 fails into the 1m tier; partition 1's state is lost (its commit without
 * metadata), so C's 1m copy runs unjudged; A@1 fails and holds A, A@2 and A@3 park. C's copy
 * fails on into the 10m tier and takes C's hold, whose commit the broker refuses (its
 * metadata limit lowered): the copy waits its turn again, now for room, as the state holds A
 * and its parked records. A's retry succeeds and releases A; A@2 runs, C's copy runs again and
 * is refused again; the state is read again with A@3 still parked, and C's copy waits for room.
 * A@3 is read again and runs: the room is there, but only a release, an expiry or a load ran
 * free keys' turns, so C's copy never ran again, and C's 10m copies waited behind it for good.
 *
 * Fixed: parked records run after a re-read make room too, and free keys' turns run after them
 * (key-parking.ts drainFreeKeys after the re-read drain).
 */
describe('park-by-key: a tier record waiting for room while another key\'s parked records run after a reload', () => {
  it('runs once they made room, so no record of its key is left behind it', async () => {
    const base: FaultWorldOptions = {
      ordering: 'park-by-key',
      reaction: 'kafkajs',
      partitions: PARTITIONS,
      parkingBudgetBytes: 87,
      replays: [],
      records: [
        { key: 'C', partition: 1, failures: 3 },
        { key: 'A', partition: 1, failures: 1 },
        { key: 'A', partition: 1, failures: 0 },
        { key: 'A', partition: 1, failures: 0 },
      ],
    };
    const dry = await faultWorld(base).run();
    const result = await faultWorld({
      ...base,
      events: [
        { kind: 'state-lost', at: Math.floor(0.18919 * dry.steps) },
        { kind: 'metadata-limit-lowered', at: 0 },
      ],
      loweredMetadataLimitBytes: 50,
    }).run();
    expect(result.metadataLimitsLowered).toBe(1);
    expect(result.statesLost).toBe(1);
    expect(result.lost).toEqual([]);
    expect(result.paused).toEqual([]);
  });
});
