import { isKeptStack } from '../model/hand-over';
import type { HandOver, HeldResources, ProjectModel, TopologyModel } from '../model/types';
import { compareStrings } from '../util/compare';
import { heldIn, withHeldCarried } from './held-by-state';
import { synthesizeStacks } from './stack-resources';
import type { StackResources } from './stack-resources';
import type { PlannedChange } from './types';

/** The stacks a model generates: each topology's own, and the former stacks it carries. */
function generatedStacks(model: ProjectModel): Set<string> {
  return new Set(model.topologies.flatMap((t) => [t.name, ...(t.handedOver ?? []).map((h) => h.stack)]));
}

/** The removed stacks a model carries, by name. */
export function removedStacks(model: ProjectModel | undefined): Set<string> {
  return new Set((model?.topologies ?? []).flatMap((t) => (t.handedOver ?? []).filter(isKeptStack).map((h) => h.stack)));
}

/**
 * Keeps generating the stack of every topology whose file was deleted. Without it the
 * stack's configuration disappears while its state still holds topics and ACLs: nothing
 * could apply the deletion the plan announces, the state is orphaned, and the ACLs stay
 * in Kafka. So the stack stays, empty, and is carried in the model (hence in the
 * snapshot) by the first topology: krt cannot tell offline when it was applied, so it
 * keeps it until a topology generates that stack again (a file of that name, or a
 * `previousName`). Only a topology's own stack is kept this way: a former stack holds
 * `removed` blocks, and dropping those is told by the plan (see `droppedMoves`).
 *
 * The kept stack also carries what it last held (`mayHold`: from the committed stack, as
 * applied, else synthesized from the snapshot): until someone applies it, its state still
 * holds those topics, and a later spec that declares one of them again elsewhere would
 * have it created over a topic that exists and then deleted by that apply. The guard
 * judges against them until the operator says the stack was applied (`withAppliedStacks`).
 */
export function withRemovedStacks(baseline: ProjectModel | undefined, model: ProjectModel, committed?: ReadonlyMap<string, StackResources>): ProjectModel {
  const stripped = model.topologies.map(withoutRemovedStacks);
  const generated = generatedStacks({ topologies: stripped });
  const gone = [...new Set([...(baseline?.topologies ?? []).map((t) => t.name), ...removedStacks(baseline)])].filter((s) => !generated.has(s)).sort(compareStrings);
  const [host, ...rest] = stripped;
  if (!host || gone.length === 0) return withHeldCarried(baseline, stripped.every((t, i) => t === model.topologies[i]) ? model : { ...model, topologies: stripped });
  const kept: HandOver[] = gone.map((stack) => {
    const mayHold = heldBy(baseline!, stack, committed);
    return mayHold ? { stack, topics: [], acls: [], mayHold } : { stack, topics: [], acls: [] };
  });
  const handedOver = [...(host.handedOver ?? []), ...kept].sort((a, b) => compareStrings(a.stack, b.stack));
  // What the deleted topologies' own stacks deleted before they were, too (see withHeldCarried).
  return withHeldCarried(baseline, { ...model, topologies: [{ ...host, handedOver }, ...rest] });
}

/**
 * What the state of a stack that is now kept empty may hold: for a topology deleted just
 * now, what its stack holds (committed, as applied, or else synthesized from the
 * snapshot); for a stack kept already, what it held when it was first kept.
 */
function heldBy(baseline: ProjectModel, stack: string, committed: ReadonlyMap<string, StackResources> | undefined): HeldResources | undefined {
  const topology = baseline.topologies.find((t) => t.name === stack);
  if (!topology) return baseline.topologies.flatMap((t) => t.handedOver ?? []).find((h) => h.stack === stack && isKeptStack(h))?.mayHold;
  return heldIn(committed?.get(stack) ?? synthesizeStacks([topology]).get(stack)!);
}

function withoutRemovedStacks(topology: TopologyModel): TopologyModel {
  const handedOver = topology.handedOver?.filter((h) => !isKeptStack(h));
  if (handedOver === undefined || handedOver.length === topology.handedOver!.length) return topology;
  const { handedOver: _, ...rest } = topology;
  return handedOver.length > 0 ? { ...rest, handedOver } : rest;
}

/** What the plan says when a topology's stack starts or stops being kept empty. */
export function removedStackChanges(before: ProjectModel | undefined, after: ProjectModel): { topology: string; change: PlannedChange }[] {
  const [was, now] = [removedStacks(before), removedStacks(after)];
  const started = [...now].filter((s) => !was.has(s)).sort(compareStrings);
  const ended = [...was].filter((s) => !now.has(s)).sort(compareStrings);
  return [
    ...started.map((stack) => ({
      topology: stack,
      change: {
        risk: 'safe' as const,
        text: `topology removed: its stack '${stack}' is still generated, with no resources, so applying it (cdktf deploy ${stack}, or terraform apply in its folder) deletes what its state holds, as told above; krt keeps generating it, empty, since it cannot tell offline when it was applied, and refuses to declare what it held again elsewhere until told \`krt synth --applied ${stack}\``,
        terraform: { action: 'delete' as const, stacks: [stack], topics: [] },
      },
    })),
    ...ended.map((stack) => ({
      topology: stack,
      change: { risk: 'safe' as const, text: `stack '${stack}' is generated by a topology again and no longer kept empty` },
    })),
  ];
}
