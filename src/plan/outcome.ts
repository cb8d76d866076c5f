import { stackTopics } from '../model/hand-over';
import { topicResourceId } from '../naming';
import type { ConsumerModel, HeldResources, KeptStack, ProjectModel, RetryTierModel, TopicModel, TopologyModel } from '../model/types';
import { compareStrings } from '../util/compare';
import { specError } from '../validate/diagnostic';
import type { Diagnostic } from '../validate/diagnostic';
import { configChanges } from './config-changes';
import { grownUnderParking } from './key-partitions';
import { changedTopologies, synthesizeStacks } from './stack-resources';
import type { StackResources, TopicResource } from './stack-resources';
import type { PlannedChange, TerraformChange } from './types';
import { refusal } from './refusals';
import { renamedTier } from './renamed-tier';
import { heldIn, heldResources } from './held-by-state';
import { removedStacks } from './removed-stacks';
import { role, topicOwners } from './topic-owner';
import type { TopicOwner } from './topic-owner';

/** A change of the Terraform outcome, told under the consumer (or topology) it concerns. */
export interface OutcomeChange {
  readonly topology: string;
  readonly consumer?: string;
  readonly change: PlannedChange;
}

export interface Outcome {
  readonly changes: readonly OutcomeChange[];
  /** What `krt synth` refuses: a topic deleted or replaced that the spec did not declare gone. */
  readonly refused: readonly Diagnostic[];
  /**
   * For every stack judged, what its state may hold once this change is synthesized and
   * before it is applied: what it held or may still hold that its configuration no longer
   * declares (undefined: nothing). The snapshot records it (see held-by-state.ts).
   */
  readonly held: ReadonlyMap<string, HeldResources | undefined>;
}

/**
 * The guard on the outcome: the `kafka_topic` resources of every stack before (the
 * committed model, synthesized by the same emitter) and after, keyed by topic name
 * across stacks. A topic a stack held and no longer declares, without a `removed`
 * block, is deleted with its records; one whose partitions go down or whose name
 * changes is replaced. Either is refused unless the spec declared the topic gone (its
 * consumer decommissioned, or a retired tier dropped). A topic that already exists and
 * that a stack would create without importing it makes the apply fail: refused too. The
 * judgment never asks which edit led there.
 */
export function judgeOutcome(before: ProjectModel, after: ProjectModel, committed?: ReadonlyMap<string, StackResources>, applied: ReadonlySet<string> = new Set()): Outcome {
  const changed = changedTopologies(before, after);
  const ahead = committed ? committedAhead(before, committed) : { topologies: [], topics: new Map<string, string>() };
  for (const name of ahead.topologies) changed.add(name);
  const pending = pendingTopics(before);
  for (const name of reclaimingHosts(before, after, pending)) changed.add(name);
  const was = stacksBefore(before.topologies.filter((t) => changed.has(t.name)), committed, before.keptStacks);
  const now = synthesizeStacks(after.topologies.filter((t) => changed.has(t.name)));
  // A kept stack has no resources (and no blocks): judged on every run, at no cost, so
  // that one kept or no longer kept is judged whatever else changed.
  for (const { stack } of after.keptStacks ?? []) now.set(stack, emptyStack(stack));
  const context = new Context(before, after, was, now, ahead.topics, pending, applied);

  for (const old of was.values()) {
    if (!now.has(old.stack)) context.vanished(old);
    for (const resource of old.topics.values()) {
      const current = now.get(old.stack)?.topics.get(resource.address);
      if (current) context.kept(resource, current);
      else if (now.get(old.stack)?.forgotten.has(resource.address)) context.forgotten(resource);
      else context.deleted(resource);
    }
  }
  for (const stack of now.values()) {
    for (const resource of stack.topics.values()) {
      if (was.get(stack.stack)?.topics.has(resource.address)) continue;
      context.added(resource, stack.imports.get(resource.address) === resource.name);
    }
  }
  for (const name of [...new Set([...was.keys(), ...now.keys()])].sort(compareStrings)) context.droppedMoves(name);
  context.ownersChanged();
  return { ...context.result(), held: heldAfter(was, now) };
}

/**
 * What each judged stack's state may hold that its configuration no longer declares:
 * whatever it held before (as applied, and what it may still hold) that it neither
 * declares nor forgets now. Taken from the outcome, whatever the edit that led there.
 */
function heldAfter(was: ReadonlyMap<string, StackResources>, now: ReadonlyMap<string, StackResources>): Map<string, HeldResources | undefined> {
  const held = new Map<string, HeldResources | undefined>();
  for (const stack of now.values()) {
    const old = was.get(stack.stack);
    const gone = (address: string, declared: ReadonlySet<string> | ReadonlyMap<string, unknown>) => !declared.has(address) && !stack.forgotten.has(address);
    const topics = new Map([...(old?.topics ?? [])].filter(([address]) => gone(address, stack.topics)));
    const acls = new Set([...(old?.acls ?? [])].filter((address) => gone(address, stack.acls)));
    held.set(stack.stack, heldIn({ ...stack, topics, acls }));
  }
  return held;
}

/** Every stack a topology's Terraform holds: its own, and those it keeps for a move or a rename. */
function stacksOf(topology: TopologyModel): string[] {
  return [topology.name, ...(topology.handedOver ?? []).map((h) => h.stack)];
}

/**
 * The stacks before, each on its own: the committed one, as applied, where the folder has
 * it; else synthesized from the snapshot (a first synth, a stack folder deleted, a stack the
 * cache vouched for as the emitter's own, or a guard given models only). Taken per
 * topology, one stack missing made a topology's committed stacks all go unread, and an
 * edited one went unjudged (found by attack 33).
 */
function stacksBefore(topologies: readonly TopologyModel[], committed: ReadonlyMap<string, StackResources> | undefined, keptStacks: readonly KeptStack[] = []): Map<string, StackResources> {
  const stacks = synthesizeStacks(topologies.filter((t) => !committed || !stacksOf(t).every((s) => committed.has(s)) || behindSnapshot(t, committed)));
  for (const stack of topologies.flatMap(stacksOf)) {
    const onDisk = committed?.get(stack);
    if (onDisk) stacks.set(stack, withSnapshotOnly(onDisk, stacks.get(stack)));
  }
  for (const { stack } of keptStacks) stacks.set(stack, committed?.get(stack) ?? emptyStack(stack));
  // A committed file no longer declares what the stack deleted; its state holds it until it is applied.
  for (const [stack, held] of heldResources({ topologies, keptStacks })) stacks.set(stack, withHeld(stacks.get(stack), stack, held));
  return stacks;
}

/** What a kept stack's Terraform declares: nothing. */
function emptyStack(stack: string): StackResources {
  return { stack, topics: new Map(), forgotten: new Set(), imports: new Map(), acls: new Set() };
}

/**
 * Whether a topology's committed stack lacks a topic the snapshot gives it (neither declared,
 * imported nor forgotten there): the committed file is behind the snapshot (a merge that kept
 * one side's snapshot and the other's stacks, a hand edit), and the stack's state may hold
 * what the snapshot says, which the committed file alone would hide (found by attack 36).
 */
function behindSnapshot(topology: TopologyModel, committed: ReadonlyMap<string, StackResources>): boolean {
  const onDisk = committed.get(topology.name);
  if (!onDisk) return false;
  const known = new Set([...[...onDisk.topics.values()].map((t) => t.address), ...onDisk.forgotten, ...onDisk.imports.keys()]);
  return topology.consumers.flatMap(stackTopics).some((name) => !known.has(`kafka_topic.${topicResourceId(name)}`));
}

/** The committed stack, with the topics and ACLs only the snapshot's stack has (`fromSnapshot`, when it was synthesized) added. */
function withSnapshotOnly(onDisk: StackResources, fromSnapshot: StackResources | undefined): StackResources {
  if (!fromSnapshot) return onDisk;
  const known = new Set([...onDisk.topics.keys(), ...onDisk.forgotten, ...onDisk.imports.keys()]);
  const missing = [...fromSnapshot.topics].filter(([address]) => !known.has(address));
  const acls = [...fromSnapshot.acls].filter((a) => !onDisk.acls.has(a) && !onDisk.forgotten.has(a));
  if (missing.length + acls.length === 0) return onDisk;
  return { ...onDisk, topics: new Map([...onDisk.topics, ...missing]), acls: new Set([...onDisk.acls, ...acls]) };
}

/** A stack's resources, with those its state may still hold added. */
function withHeld(stack: StackResources | undefined, name: string, held: HeldResources): StackResources {
  const topics = new Map(stack?.topics ?? []);
  for (const topic of held.topics) if (!topics.has(topic.address)) topics.set(topic.address, { ...topic, stack: name });
  return {
    stack: name,
    topics,
    forgotten: stack?.forgotten ?? new Set(),
    imports: stack?.imports ?? new Map(),
    acls: new Set([...(stack?.acls ?? []), ...held.acls.map((id) => `kafka_acl.${id}`)]),
  };
}

/** The topics stacks may still hold that their configuration no longer declares, with the stack: by topic name. */
function pendingTopics(before: ProjectModel): Map<string, string> {
  return new Map([...heldResources(before)].flatMap(([stack, held]) => held.topics.map((t) => [t.name, stack] as const)));
}

/**
 * The topologies generating a stack that may still hold a topic the spec names again:
 * judged whatever else changed, since the topic's new stack would be created over what
 * that stack's state may still hold. Without any, what they hold was judged when it left
 * their configuration.
 */
function reclaimingHosts(before: ProjectModel, after: ProjectModel, pending: ReadonlyMap<string, string>): string[] {
  if (pending.size === 0) return [];
  const named = topicOwners(after);
  const stacks = new Set([...pending].filter(([topic]) => named.has(topic)).map(([, stack]) => stack));
  return [before, after].flatMap((m) => m.topologies.filter((t) => stacksOf(t).some((s) => stacks.has(s))).map((t) => t.name));
}

/**
 * The topologies whose committed stacks hold a topic the snapshot does not name, or name
 * otherwise: at another address, with other partitions, replication factor or any config
 * (retention, cleanup policy, tiered storage). The committed Terraform is then ahead of the snapshot (a hand edit, an
 * emergency `terraform apply`, a merge that kept one side's snapshot and the other's
 * stacks), so an unchanged model can still delete records, and those topologies are
 * judged too, from the committed stack as Terraform sees it.
 */
function committedAhead(before: ProjectModel, committed: ReadonlyMap<string, StackResources>): { topologies: string[]; topics: Map<string, string> } {
  const named = topicOwners(before);
  const topologyOfStack = new Map(before.topologies.flatMap((t) => stacksOf(t).map((s) => [s, t] as const)));
  const topologies = new Set<string>();
  const topics = new Map<string, string>();
  for (const stack of committed.values()) {
    const topology = topologyOfStack.get(stack.stack);
    if (topology === undefined) continue;
    for (const topic of stack.topics.values()) {
      const difference = differsFromSnapshot(topic, named.get(topic.name)?.topic, topology);
      if (difference === undefined) continue;
      topologies.add(topology.name);
      topics.set(topic.name, `the committed stack terraform/${stack.stack}/cdk.tf.json ${difference}: it was edited after krt wrote it, or a merge mixed two versions, and krt judges the change against it as Terraform will; if that stack was never applied, restore the output folder from one commit (git checkout <commit> -- <output folder>) and run again`);
    }
  }
  return { topologies: [...topologies], topics };
}

/** How a committed topic differs from what the snapshot gives it, in a clause; undefined when it does not. */
function differsFromSnapshot(topic: TopicResource, snapshot: TopicModel | undefined, topology: TopologyModel): string | undefined {
  if (snapshot === undefined) return 'holds it, which the model snapshot does not name';
  // An address is the resource: a topic moved to another one is deleted there and created here (found by attack 33).
  const address = `kafka_topic.${topicResourceId(topic.name)}`;
  if (topic.address !== address) return `holds it at ${topic.address}, where krt writes ${address}`;
  if (snapshot.partitions !== topic.partitions) return `gives it ${topic.partitions} partitions where the model snapshot says ${snapshot.partitions}`;
  if (topology.cluster.replicationFactor !== topic.replicationFactor) return `gives it replication factor ${topic.replicationFactor} where the model snapshot says ${topology.cluster.replicationFactor}`;
  // min.insync.replicas comes from the cluster settings, not the topic's config.
  const { 'min.insync.replicas': _minIsr, ...config } = topic.config;
  for (const key of [...new Set([...Object.keys(config), ...Object.keys(snapshot.config)])].sort(compareStrings)) {
    if (config[key] !== snapshot.config[key]) return `gives it ${key} ${config[key] ?? '(unset)'} where the model snapshot says ${snapshot.config[key] ?? '(unset)'}`;
  }
  return undefined;
}

/** The two sides and what was found so far. */
class Context {
  readonly changes: OutcomeChange[] = [];
  readonly refused: Diagnostic[] = [];
  private readonly ownersBefore: Map<string, TopicOwner>;
  private readonly ownersAfter: Map<string, TopicOwner>;
  private readonly consumersAfter: Map<string, ConsumerModel>;
  /** Topics the apply deletes somewhere: a creation of one elsewhere is the same mistake, told once. */
  private readonly deletedNames = new Set<string>();
  /** Topics of decommissioned consumers that left the spec, by consumer: told in one line each. */
  private readonly gone = new Map<string, TopicOwner[]>();
  private readonly moves = new Map<string, { owner: TopicOwner; from: string; to: string; topics: string[] }>();
  /** Topics declared again that another stack may still hold, by consumer and stack. */
  private readonly held = new Map<string, { owner: TopicOwner; stack: string; topics: string[] }>();

  constructor(
    readonly before: ProjectModel,
    readonly after: ProjectModel,
    readonly was: Map<string, StackResources>,
    readonly now: Map<string, StackResources>,
    /** Why a topic is judged from a committed stack that is ahead of the snapshot, by topic name. */
    private readonly ahead: ReadonlyMap<string, string>,
    /** Topics a stack's state may still hold that its configuration no longer declares (see held-by-state.ts), with that stack. */
    private readonly pending: ReadonlyMap<string, string> = new Map(),
    /** Stacks the operator says were applied since the last synth (`--applied`): their state is their committed configuration. */
    private readonly applied: ReadonlySet<string> = new Set(),
  ) {
    this.ownersBefore = topicOwners(before);
    this.ownersAfter = topicOwners(after);
    this.consumersAfter = new Map(after.topologies.flatMap((t) => t.consumers).map((c) => [c.name, c]));
  }

  kept(old: TopicResource, current: TopicResource): void {
    const owner = this.ownersAfter.get(current.name) ?? this.ownersBefore.get(old.name);
    if (current.name !== old.name || current.partitions < old.partitions) {
      this.refuse(refusal.replaced(old, current, owner), old.name);
      this.say(owner, { action: 'replace', stacks: [old.stack], topics: [old.name] }, 'destructive', current.name !== old.name
        ? `'${old.name}' is renamed to '${current.name}' in place: the provider deletes and recreates it, with every record in it (krt synth refuses this)`
        : `'${old.name}' shrinks from ${old.partitions} to ${current.partitions} partitions: Kafka cannot remove partitions, so the provider deletes and recreates it, with every record in it (krt synth refuses this)`);
      return;
    }
    const update: TerraformChange = { action: 'update', stacks: [old.stack], topics: [old.name] };
    if (current.partitions > old.partitions) {
      const keyed = this.parkingByKey(current.name);
      if (keyed.length > 0) this.say(owner, update, 'needs-migration', grownUnderParking(old, current, keyed));
      else this.say(owner, update, 'safe', `'${old.name}' grows from ${old.partitions} to ${current.partitions} partitions: records already in it stay where they are`);
    }
    for (const change of configChanges(old, current, owner)) this.say(owner, update, change.risk, change.text);
  }

  forgotten(old: TopicResource): void {
    const owner = this.ownersAfter.get(old.name) ?? this.ownersBefore.get(old.name);
    const to = [...this.now.values()].find((s) => s.stack !== old.stack && [...s.imports.values()].includes(old.name));
    if (to && owner) {
      const key = `${owner.consumer.name}\0${old.stack}\0${to.stack}`;
      const move = this.moves.get(key) ?? { owner, from: old.stack, to: to.stack, topics: [] };
      move.topics.push(old.name);
      this.moves.set(key, move);
      return;
    }
    // Forgotten, not moved: said under the consumer whose stack forgets it (a main topic handed
    // back is read on by another consumer, which the topic's owner after the change names).
    const forgetter = this.ownersBefore.get(old.name) ?? owner;
    this.say(forgetter, { action: 'forget', stacks: [old.stack], topics: [old.name] }, 'needs-migration', `'${old.name}' leaves Terraform with its records: stack '${old.stack}' forgets it (removed, destroy = false) and nothing here manages it any more; apply '${old.stack}' with Terraform or OpenTofu 1.7+, then drop previouslyManaged from the spec, saying so: \`krt synth --applied ${old.stack}\``);
  }

  deleted(old: TopicResource): void {
    this.deletedNames.add(old.name);
    if (this.pending.get(old.name) === old.stack && !this.ownersBefore.has(old.name)) {
      this.stillHeld(old);
      return;
    }
    const owner = this.ownersBefore.get(old.name);
    const now = this.consumerAfter(owner);
    if (owner && declaredGone(owner, this.ownersAfter, this.consumersAfter)) {
      if (owner.topic.kind === 'retry' && owner.topic.draining && now) {
        this.say(owner, { action: 'delete', stacks: [old.stack], topics: [old.name] }, 'destructive', `drained tier ${owner.topic.label} dropped: deletes '${old.name}'; anything still in it is lost, so apply only after \`krt plan --live\` reported it empty`);
      } else this.gone.set(owner.consumer.name, [...(this.gone.get(owner.consumer.name) ?? []), owner]);
      return;
    }
    const moved = [...(this.now.get(old.stack)?.topics.values() ?? [])].find((t) => t.name === old.name);
    if (moved) {
      this.refuse(refusal.readdressed(old, moved.address), old.name);
      this.say(owner, { action: 'replace', stacks: [old.stack], topics: [old.name] }, 'destructive', `'${old.name}' moves from ${old.address} to ${moved.address} in stack '${old.stack}': Terraform deletes it at the old address with every record and creates it empty at the new one (krt synth refuses this)`);
      return;
    }
    const elsewhere = [...this.now.values()].find((s) => s.stack !== old.stack && [...s.topics.values()].some((t) => t.name === old.name));
    this.refuse(refusal.deleted(old, owner, now, elsewhere?.stack, this.ownersAfter.get(old.name)), old.name);
    this.say(owner, { action: 'delete', stacks: elsewhere ? [old.stack, elsewhere.stack] : [old.stack], topics: [old.name] }, 'destructive', elsewhere
      ? `'${old.name}' leaves stack '${old.stack}' for stack '${elsewhere.stack}' without a declared move: '${old.stack}' deletes it with every record and '${elsewhere.stack}' creates it empty (krt synth refuses this)`
      : owner?.topic.kind === 'retry' && now
        ? tierDeleted(owner.topic, old, now)
        : `stack '${old.stack}' deletes '${old.name}' with every record in it (krt synth refuses this)`);
  }

  /**
   * A topic a stack's state may still hold that its configuration no longer declares: its
   * deletion was judged when it left the configuration (a consumer removed, a tier dropped,
   * a topology file deleted), and applying that stack does it. Declared again in another
   * stack, the topic would be created over the one that exists (that apply fails), and the
   * first stack's apply would then delete it under its new consumer, with every record.
   * Told once per consumer and stack, in `result`. Not declared again, it stays recorded
   * (`heldAfter`), also when another topology takes the stack over.
   */
  private stillHeld(old: TopicResource): void {
    const owner = this.ownersAfter.get(old.name);
    if (!owner) return;
    const key = `${owner.consumer.name}\0${old.stack}`;
    const held = this.held.get(key) ?? { owner, stack: old.stack, topics: [] };
    held.topics.push(old.name);
    this.held.set(key, held);
  }

  added(current: TopicResource, imported: boolean): void {
    const owner = this.ownersAfter.get(current.name);
    const existed = this.ownersBefore.get(current.name);
    if (imported) {
      if (!existed) {
        const heldBy = this.pending.get(current.name);
        this.refuse(heldBy === undefined ? refusal.importsMissing(current, owner) : refusal.importsDeleted(current, owner, heldBy, removedStacks(this.before).has(heldBy)));
        return;
      }
      const prior = [...this.was.values()].flatMap((s) => [...s.topics.values()]).find((t) => t.stack !== current.stack && t.name === current.name);
      if (prior) {
        // A move: what the import adopts is the resource the other stack held.
        this.kept(prior, current);
        return;
      }
      // A take-over adopts the topic as Kafka has it, which krt cannot see offline: judged at worst.
      this.say(
        owner,
        { action: 'import', stacks: [current.stack], topics: [current.name] },
        'destructive',
        `stack '${current.stack}' imports the existing topic '${current.name}' (an import block) as Kafka has it, which krt cannot see offline: if it has more than ${current.partitions} partitions, the provider would replace it with every record (prevent_destroy makes that apply stop instead), another replication factor is reassigned in place (Kafka 2.4 or newer), and its configs become exactly the spec's, judged here against the broker defaults; check with \`krt plan --live\` that it matches the spec, apply with Terraform or OpenTofu 1.7+ (an older one would try to create the topic and fail), then drop previouslyManaged from the spec`,
      );
      const unknown: TopicResource = { ...current, partitions: existed.topic.partitions, config: { 'min.insync.replicas': current.config['min.insync.replicas'] ?? '' } };
      this.kept(unknown, current);
      return;
    }
    if (existed && !this.deletedNames.has(current.name)) this.refuse(refusal.createsExisting(current, owner, existed));
  }

  /**
   * A stack whose configuration is no longer generated while its state holds resources:
   * no apply can delete or forget them (Terraform refuses to run without a
   * configuration), so the state is orphaned and its ACLs stay in Kafka. `krt synth`
   * keeps a deleted topology's stack, empty (see `withRemovedStacks`); anything else that
   * drops a stack holding resources is refused. A former stack holds only `removed`
   * blocks, whose loss `droppedMoves` tells.
   */
  vanished(old: StackResources): void {
    const [topics, acls] = [old.topics.size, old.acls.size];
    if (topics + acls === 0) return;
    // The former stack of a rename dropped after its apply still has its record (the old name's own ACLs at least): said applied, it goes.
    const said = heldResources(this.before).has(old.stack) ? `; if it was applied since the synth that took them out of its configuration, say so: krt synth --applied ${old.stack}` : '';
    const topology = this.before.topologies.find((t) => t.name === old.stack);
    this.refuse(
      specError(
        topology?.source.file ?? 'topologies',
        '',
        `stack '${old.stack}' would no longer be generated while its Terraform state holds ${topics} topics and ${acls} ACLs, so nothing could apply their deletion: the state would be orphaned and the ACLs left in Kafka; keep generating the stack, empty, until it is applied (krt synth does so for a deleted topology file)${said}`,
      ),
    );
  }

  /**
   * Import and removed blocks that disappear from a stack, each one told: fine once the
   * stack was applied with them, a loss if not (the state still holds what a removed
   * block forgot, so the next apply deletes it; a topic never imported is created over one
   * that exists). Whether the stack keeps other blocks changes nothing.
   */
  droppedMoves(stack: string): void {
    const old = this.was.get(stack);
    if (!old) return;
    const current = this.now.get(stack);
    const imports = [...old.imports].filter(([address]) => !current?.imports.has(address)).map(([, topic]) => topic);
    const forgotten = [...old.forgotten].filter((address) => !current?.forgotten.has(address));
    if (imports.length + forgotten.length === 0) return;
    const byAddress = new Map([...this.ownersBefore.keys()].map((name) => [`kafka_topic.${topicResourceId(name)}`, name]));
    const quoted = (names: string[]) => names.sort(compareStrings).map((t) => `'${t}'`).join(', ');
    const acls = forgotten.filter((a) => !byAddress.has(a)).length;
    const blocks = [
      ...(imports.length > 0 ? [`the import of ${quoted([...imports])}`] : []),
      ...(forgotten.length > acls ? [`the removed of ${quoted(forgotten.flatMap((a) => byAddress.get(a) ?? []))}`] : []),
      ...(acls > 0 ? [`the removed of ${acls} ACL${acls === 1 ? '' : 's'}`] : []),
    ].join(', ');
    const topics = [...new Set([...imports, ...forgotten.flatMap((a) => byAddress.get(a) ?? [])])].sort(compareStrings);
    // A removed block gone while the stack's state may still hold what it forgot: its next apply deletes that (found by attack 36).
    const unforgotten = forgotten.filter((address) => !current?.topics.has(address) && !current?.acls.has(address));
    if (unforgotten.length > 0 && !this.applied.has(stack)) {
      this.unforget(stack, unforgotten.flatMap((a) => byAddress.get(a) ?? []), unforgotten.filter((a) => !byAddress.has(a)).length, topics);
      return;
    }
    this.changes.push({
      topology: this.topologyOfStack(stack),
      change: {
        risk: 'needs-migration',
        terraform: { action: 'blocks-dropped', stacks: [stack], topics },
        text: current
          ? `stack '${stack}' no longer has ${blocks}: fine once it was applied with them (\`terraform plan\` there shows no changes); if not, put the declaration back (previousTopology, previousName, previouslyManaged) and apply first`
          : `stack '${stack}' is no longer generated: apply it before deleting its folder (it forgets what moved away and removes what nobody took over); its state then holds nothing`,
      },
    });
  }

  /**
   * A stack that no longer forgets topics or ACLs its last synth had it forget (a
   * previousTopology, previousName or previouslyManaged declaration dropped): unless it was
   * applied with those removed blocks, its state still holds them, and its next apply deletes
   * them, with every record, from under whoever holds them now. krt cannot tell offline, so
   * it is refused until the operator says the stack was applied (`--applied`).
   */
  private unforget(stack: string, names: string[], acls: number, topics: string[]): void {
    const what = [...(names.length > 0 ? [quote(names.sort(compareStrings))] : []), ...(acls > 0 ? [`${acls} ACL${acls === 1 ? '' : 's'}`] : [])].join(' and ');
    const by = this.after.topologies.find((t) => stacksOf(t).includes(stack)) ?? this.before.topologies.find((t) => stacksOf(t).includes(stack));
    this.refuse(
      specError(
        by?.source.file ?? 'topologies',
        '',
        `stack '${stack}' would no longer forget ${what} (the removed blocks of a previousTopology, previousName or previouslyManaged declaration that was dropped): unless '${stack}' was applied with those blocks, its Terraform state still holds them, and its next apply deletes them, with every record, from under whoever took them over; apply '${stack}' as committed first (terraform apply in its folder, or cdktf deploy ${stack} without this edit), then drop the declaration with krt synth --applied ${stack}`,
      ),
    );
    this.changes.push({
      topology: this.topologyOfStack(stack),
      change: { risk: 'destructive', terraform: { action: 'blocks-dropped', stacks: [stack], topics }, text: `stack '${stack}' no longer forgets ${what}: unless it was applied with its removed blocks, its next apply deletes them with every record (krt synth refuses this until told \`--applied ${stack}\`)` },
    });
  }

  /**
   * Topics are keyed by name AND by who reads them: a topic that another consumer still in
   * the spec (or the same consumer in another role) now names changes hands with its
   * records, although Terraform sees the same name at the same address. Main topics are
   * read by any number of consumers and are not owned that way.
   */
  ownersChanged(): void {
    for (const [name, was] of this.ownersBefore) {
      const now = this.ownersAfter.get(name);
      if (!now || (was.topic.kind === 'main' && now.topic.kind === 'main')) continue;
      const stillThere = this.consumersAfter.has(was.consumer.name);
      if (now.consumer.name === was.consumer.name ? now.topic.kind === was.topic.kind : !stillThere) continue;
      this.refuse(refusal.changesHands(name, was, now));
      this.say(now, { action: 'update', stacks: [now.consumer.topology], topics: [name] }, 'destructive', `'${name}' passes from ${role(was)} to ${role(now)} with every record in it (krt synth refuses this)`);
    }
  }

  result(): Omit<Outcome, 'held'> {
    for (const [name, owners] of this.gone) {
      const order = stackTopics(owners[0]!.consumer);
      const topics = owners.map((o) => o.topic.name).sort((a, b) => order.indexOf(a) - order.indexOf(b)).map((t) => `'${t}'`).join(', ');
      this.say(owners[0], { action: 'delete', stacks: [owners[0]!.consumer.topology], topics: owners.map((o) => o.topic.name).sort(compareStrings) }, 'destructive', `consumer removed: deletes ${topics} and their ACLs; first make sure \`krt dlq inspect ${name}\` shows nothing left and \`krt plan --live\` reports its tiers empty; until you say that stack was applied (\`krt synth --applied ${owners[0]!.consumer.topology}\`), krt refuses to declare them elsewhere`);
    }
    for (const move of this.moves.values()) {
      const topics = move.topics.sort(compareStrings).map((t) => `'${t}'`).join(', ');
      const declaration = move.owner.consumer.previousTopology === move.from ? (this.after.topologies.find((t) => t.name === move.to)?.previousName === move.from ? 'previousName' : 'previousTopology') : 'the declaration';
      this.say(
        move.owner,
        { action: 'move', stacks: [move.from, move.to], topics: move.topics },
        'needs-migration',
        `moves from stack '${move.from}' to stack '${move.to}' with its records: '${move.to}' imports ${topics} (import blocks) and '${move.from}' forgets them and the consumer's ACLs (removed, destroy = false); apply both stacks with Terraform or OpenTofu 1.7+, in either order (cdktf deploy ${move.from} ${move.to}), check that \`terraform plan\` then shows no changes in both, and remove ${declaration} from the spec after that, saying so: \`krt synth --applied ${move.from}\``,
      );
    }
    for (const { owner, stack, topics } of this.held.values()) {
      const at = owner.consumer.topology;
      const names = topics.sort(compareStrings);
      const kept = removedStacks(this.before).has(stack);
      this.refuse(refusal.stillHeld(stack, kept, names, owner));
      this.say(owner, { action: 'delete', stacks: [stack, at], topics: names }, 'destructive', `${quote(names)} declared again in stack '${at}' while ${kept ? `the kept stack '${stack}' of a deleted topology` : `stack '${stack}', whose configuration no longer declares them,`} may still hold them: unless '${stack}' was applied, '${at}' fails to create them and applying '${stack}' deletes them with every record (krt synth refuses this until told \`--applied ${stack}\`)`);
    }
    return { changes: this.changes, refused: this.refused };
  }

  /** The park-by-key consumers that read this topic (as main topic or tier): their order rests on key -> partition. */
  private parkingByKey(topic: string): ConsumerModel[] {
    return [...this.consumersAfter.values()].filter((c) => c.ordering === 'park-by-key' && [c.mainTopic, ...c.tiers, ...c.drainingTiers].some((t) => t.name === topic));
  }

  private consumerAfter(owner: TopicOwner | undefined): ConsumerModel | undefined {
    return owner && this.consumersAfter.get(owner.consumer.name);
  }

  private topologyOfStack(stack: string): string {
    return this.after.topologies.find((t) => t.name === stack || t.previousName === stack)?.name ?? stack;
  }

  private say(owner: TopicOwner | undefined, terraform: TerraformChange, risk: PlannedChange['risk'], text: string): void {
    const consumer = owner ? (this.consumerAfter(owner) ?? owner.consumer) : undefined;
    this.changes.push({ topology: consumer?.topology ?? this.topologyOfStack(terraform.stacks[0]!), ...(consumer ? { consumer: consumer.name } : {}), change: { risk, text, terraform } });
  }

  /** A refusal about a topic the committed stack holds unlike the snapshot says why krt sees it so. */
  private refuse(refused: Diagnostic, topic?: string): void {
    const why = topic === undefined ? undefined : this.ahead.get(topic);
    const diagnostic = why === undefined ? refused : { ...refused, message: `${refused.message} (${why})` };
    if (!this.refused.some((d) => d.message === diagnostic.message && d.path === diagnostic.path)) this.refused.push(diagnostic);
  }
}

/** The spec said the topic may go: its consumer was decommissioned and removed, or it was a retired tier that left `retired`. */
function declaredGone(owner: TopicOwner, ownersAfter: ReadonlyMap<string, TopicOwner>, consumersAfter: ReadonlyMap<string, ConsumerModel>): boolean {
  if (ownersAfter.has(owner.topic.name)) return false;
  if (owner.consumer.decommissioned && !consumersAfter.has(owner.consumer.name)) return true;
  return owner.topic.kind === 'retry' && owner.topic.draining;
}

const quote = (names: readonly string[]) => names.map((n) => `'${n}'`).join(', ');

/** What deleting a tier's topic means: the tier renamed (its delay still live), or taken out of the ladder. */
function tierDeleted(tier: RetryTierModel, old: TopicResource, now: ConsumerModel): string {
  const renamed = renamedTier(tier, now);
  return renamed
    ? `tier ${tier.label} renamed from '${old.name}' to '${renamed.name}' (retryTopicBase or naming changed): deletes '${old.name}' with every record waiting in it and creates '${renamed.name}' empty (krt synth refuses this)`
    : `tier ${tier.label} removed without draining: deletes '${old.name}' with every record waiting in it (krt synth refuses this)`;
}
