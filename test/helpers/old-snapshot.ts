type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A model snapshot's JSON in the shape krt wrote before snapshot version 4: each kept stack
 * of a deleted topology file a hand-over of nothing (no topics, no ACLs) in the first
 * topology, among its own hand-overs by stack name, with no project-level `keptStacks`;
 * `version` is set to `version`. That shape could not carry a kept stack without a topology.
 */
export function inOldShape(snapshot: Json, version: number): Json {
  const { keptStacks, ...rest } = snapshot;
  const old: Json = { ...rest, version };
  if (!keptStacks || keptStacks.length === 0) return old;
  if (old.topologies.length === 0) throw new Error('a snapshot of version 3 or before cannot carry kept stacks without a topology');
  const { handedOver, mayHold, ...host } = old.topologies[0];
  const kept = keptStacks.map((k: Json) => ({ stack: k.stack, topics: [], acls: [], ...(k.mayHold ? { mayHold: k.mayHold } : {}) }));
  const merged = [...(handedOver ?? []), ...kept].sort((a: Json, b: Json) => (a.stack < b.stack ? -1 : a.stack > b.stack ? 1 : 0));
  old.topologies = [{ ...host, handedOver: merged, ...(mayHold ? { mayHold } : {}) }, ...old.topologies.slice(1)];
  return old;
}
