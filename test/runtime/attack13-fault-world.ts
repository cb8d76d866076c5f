import { faultWorld as anyFaultWorld } from './fault-world';
import type { FaultWorldOptions } from './fault-world';

export type { FaultWorldOptions, PlannedRecord } from './fault-world';

/**
 * Attack 13's fault world: fault-world.ts with its replays written as `krt dlq replay` writes
 * them after a real failure, naming a main record of another key of their partition as their
 * original, and due once the main records have been read (a DLQ record's original is below the
 * state's position), so a replay may hold its key. Options given still rule.
 */
export function faultWorld(options: FaultWorldOptions) {
  return anyFaultWorld({ replayNames: 'other-key', replayDueAfterMs: 1_000, ...options });
}
