import { faultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

/**
 * The Confluent client runs a seek later, in its own loop, and only logs one librdkafka refuses:
 * the runtime is not told, and the client reads on from where it was. Records the runtime did not
 * take and sought back to must still run.
 */
describe('a seek the client drops', () => {
  it.each(['kafkajs', 'confluent'] as const)('at the parking budget, with the resume\'s seek dropped too, loses no record (%s)', async (reaction) => {
    // J fails into a tier and holds the partition's only room: K's records are declined and sought back to.
    const options: FaultWorldOptions = {
      ordering: 'park-by-key',
      reaction,
      partitions: 1,
      records: [
        { key: 'J', partition: 0, failures: 1 },
        { key: 'J', partition: 0, failures: 0 },
        { key: 'K', partition: 0, failures: 0 },
        { key: 'K', partition: 0, failures: 0 },
      ],
      faults: [{ operation: 'seek', at: 0, times: 4, dropped: true }],
      parkingBudgetBytes: 60,
    };
    const result = await faultWorld(options).run();
    expect({ injected: result.injected, lost: result.lost, outOfOrder: result.outOfOrder, paused: result.paused }).toEqual({ injected: 4, lost: [], outOfOrder: [], paused: [] });
  });

  it.each(['kafkajs', 'confluent'] as const)('of a tier record waiting for its due time, at its pause and at its resume, does not commit past it (%s)', async (reaction) => {
    // The tier record is sought back to as it waits and again as it resumes; both dropped, the
    // client reads on to the record after it, which is not taken: the head is sought again.
    const options: FaultWorldOptions = {
      ordering: 'unordered',
      reaction,
      partitions: 1,
      records: [
        { key: 'A', partition: 0, failures: 1 },
        { key: 'B', partition: 0, failures: 1 },
        { key: 'C', partition: 0, failures: 0 },
      ],
      faults: [{ operation: 'seek', at: 0, times: 2, dropped: true }],
    };
    const result = await faultWorld(options).run();
    expect({ injected: result.injected, lost: result.lost, early: result.early }).toEqual({ injected: 2, lost: [], early: [] });
  });
});
