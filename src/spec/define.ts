import type { TopologySpec } from './types';

/**
 * Declares a topology; a `topologies/*.ts` file default-exports its result.
 * Checking happens in `krt validate` and `krt synth`, which report every problem of
 * every file at once rather than stopping at the first.
 */
export function defineTopology<const T extends TopologySpec>(spec: T): T {
  return spec;
}
