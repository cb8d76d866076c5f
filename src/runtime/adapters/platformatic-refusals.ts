import { KrtError } from '../krt-error';

/**
 * What the `@platformatic/kafka` adapter refuses, and why: each message says what cannot
 * run on this client and what to do instead. The evidence (the client's own code) is in
 * docs/runtime.md, "What each client carries".
 */
export class ClientCannotCarryError extends KrtError {}

/**
 * Park-by-key keeps each main partition's parked keys in the commit metadata of its
 * offset, and @platformatic/kafka 2.12 always commits with null metadata.
 */
export const PLATFORMATIC_PARK_BY_KEY_UNSUPPORTED =
  'park-by-key ordering does not run on @platformatic/kafka: the client commits offsets without metadata, where park-by-key keeps its parked keys; run this consumer with kafkajsPort or confluentPort';

/** A commit that carries metadata (only park-by-key writes one) would lose it. */
export const PLATFORMATIC_COMMIT_METADATA_UNSUPPORTED =
  '@platformatic/kafka commits offsets without metadata, and this commit carries some (park-by-key state); run park-by-key consumers with kafkajsPort or confluentPort';

/**
 * The client's own `engines` (>= 22.22.0 || >= 24.6.0, which is to say 22.22 or newer): say
 * so before it fails on a syntax or engine error.
 */
export function platformaticNodeRefusal(nodeVersion: string): string | undefined {
  const [major = 0, minor = 0] = nodeVersion.replace(/^v/, '').split('.').map(Number);
  const supported = major > 22 || (major === 22 && minor >= 22);
  return supported
    ? undefined
    : `@platformatic/kafka needs Node 22.22 or newer and this is Node ${nodeVersion}; run this service on Node 22.22+ or 24, or use kafkajsPort or confluentPort`;
}
