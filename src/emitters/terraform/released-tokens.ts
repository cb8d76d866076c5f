/** cdktf 0.21's token registry: one per process, on the global object (tokens/private/token-map.js). */
interface CdktfTokenMap {
  readonly stringTokenMap?: Map<unknown, unknown>;
  readonly numberTokenMap?: Map<unknown, unknown>;
}

const tokenMaps = (): Map<unknown, unknown>[] => {
  const map = (globalThis as { __cdktfTokenMap?: CdktfTokenMap }).__cdktfTokenMap;
  return [map?.stringTokenMap, map?.numberTokenMap].filter((m): m is Map<unknown, unknown> => m !== undefined);
};

/**
 * Runs `build`, which makes stacks and turns them into Terraform JSON, then forgets the
 * tokens cdktf registered meanwhile. cdktf keeps each token (a reference from one resource
 * to another, an ACL naming its topic) in a process-wide map for as long as the process
 * lives, and each token holds its stack, so every stack a synth built stayed in memory: a
 * 1,000-consumer topology kept its 54,000 constructs after its JSON was written, under
 * whatever the next emitter built, and a repository's stacks all piled up. Tokens
 * registered before (a cdktf App that `krt cdktf` builds for cdktf to synthesize) are kept.
 * `build` must return only what holds no token (JSON text, plain data).
 */
export function releasingCdktfTokens<T>(build: () => T): T {
  const before = tokenMaps().map((map) => new Set(map.keys()));
  try {
    return build();
  } finally {
    tokenMaps().forEach((map, i) => {
      for (const key of map.keys()) if (!before[i]?.has(key)) map.delete(key);
    });
  }
}
