import { isKeptStack } from '../model/hand-over';
import type { HandOver, HeldResources, ProjectModel, TopologyModel } from '../model/types';
import { defaultDriftPrincipal } from '../naming';
import { withEveryAlert } from './snapshot-alerts';
import type { ModelSnapshotV1 } from './model-snapshot-schema';

/** What a migration knows besides the old snapshot: the state kept stacks may hold. */
export interface MigrationSources {
  /** What the committed Terraform of a stack declares, when it declares anything. */
  readonly committedHolding?: (stack: string) => HeldResources | undefined;
  /** Kept stacks the operator says were applied (`--applied`): their state holds nothing. */
  readonly applied?: readonly string[];
}

export interface Migrated {
  readonly model: ProjectModel;
  /** Kept stacks whose state may hold something the sources cannot name: no model is safe until the operator says. */
  readonly unknownHoldings: readonly string[];
}

/**
 * Version 1 to 2. Version 1 kept its number while the model gained fields, so one
 * snapshot may lack any of them. Those the emitters of alerts read are filled as the
 * model would have had them (no environment labels, the default drift principal, the
 * criticality's presets): they decide no guard. A kept stack (a deleted topology file's)
 * is carried over with what its state may hold, which lives nowhere in the spec: the
 * snapshot's `mayHold`, else what its committed Terraform declares. Before 4523196 a
 * kept stack had no `mayHold` at all, and after it a missing one meant "applied": the
 * two cannot be told apart, so such a stack is unknown unless said applied, never
 * guessed empty.
 */
export function migrateFromVersion1(snapshot: ModelSnapshotV1, sources: MigrationSources): Migrated {
  const applied = new Set(sources.applied ?? []);
  const unknownHoldings: string[] = [];
  const keptStack = (h: HandOver): HandOver => {
    if (!isKeptStack(h) || h.mayHold || applied.has(h.stack)) return h;
    const mayHold = sources.committedHolding?.(h.stack);
    if (mayHold) return { ...h, mayHold };
    unknownHoldings.push(h.stack);
    return h;
  };
  const topologies = snapshot.topologies.map((t): TopologyModel => {
    const raw = t as unknown as TopologyModel;
    return {
      ...raw,
      principals: { ...t.principals, drift: t.principals.drift ?? defaultDriftPrincipal(t.name) },
      environmentLabels: t.environmentLabels ?? [],
      consumers: raw.consumers.map(withEveryAlert),
      ...(t.handedOver ? { handedOver: t.handedOver.map(keptStack) } : {}),
    };
  });
  return { model: { topologies }, unknownHoldings: [...new Set(unknownHoldings)].sort() };
}
