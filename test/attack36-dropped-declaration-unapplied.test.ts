import { consumer, run, topology } from './helpers/terraform-world';
import type { Json } from './helpers/terraform-world';

/*
 * Attack 36 (class: a stack's configuration loses what kept its state from deleting records,
 * and krt neither refuses nor records it, although it now has the operator's word for
 * "applied" (`--applied`)).
 *
 * Scenario (docs/changing-topologies.md, "Move a consumer" and "Manage a main topic here, or
 * hand it back"):
 *  A. Consumer q moves from a to b (previousTopology: 'a'): b imports q's topics, a forgets them
 *     (removed blocks). b is applied (cdktf deploy b), a is not yet. The declaration is then
 *     dropped (a new commit, or the next engineer cleaning up).
 *  B. Consumer x hands its main topic back (managed: false, previouslyManaged: true): stack a
 *     forgets it. The declaration is dropped before a is applied.
 *
 * Seen: both drops are accepted by krt synth; krt plan says only `needs-migration` ("fine once it
 * was applied with them ... if not, put the declaration back") and exits 0, and the snapshot
 * records nothing for stack a. a's state still holds the topics at their addresses and its
 * configuration neither declares nor forgets them, so the next apply of a destroys them: in A,
 * q's DLQ, audit log and tiers that b now holds (every record in them); in B, the main topic
 * itself with the producers' records. Nothing was declared gone.
 *
 * At fault: src/plan/outcome.ts droppedMoves() only tells the drop; heldAfter() records what a
 * stack's state may hold from its resources alone, never from the removed blocks a change takes
 * away. Today (held-by-state.ts) krt does keep "what a synth took out of its configuration while
 * its unapplied Terraform state may still hold it" for resources, and attack 35 made dropping
 * previousName refused until --applied <old>; dropping previousTopology or previouslyManaged is
 * the same loss through a removed block instead of a resource, and is let through.
 *
 * The docs state it as a rule for the user ("remove a declaration only after every stack it
 * names was applied with it"), and the plan's needs-migration line repeats it; but that is the
 * same promise the user made for previousName, which krt now enforces, and a consumer removal,
 * which krt now records. An engineer who deploys with `cdktf deploy b` (the stack the PR was
 * about) and cleans up next day loses the records with exit 0 everywhere.
 *
 * Fixed (session 44): outcome.ts droppedMoves() refuses a removed block that goes while what
 * it forgot is not declared again, unless the stack is said applied (judgeOutcome's `applied`).
 *
 * Suggested fix: treat a removed block that disappears like a resource that disappears: refuse
 * the drop while the stack may not have been applied with it, until `--applied <stack>` (as for
 * previousName), or record the forgotten addresses in the stack's mayHold so that judgeOutcome
 * sees them (and the plan marks the drop destructive / exit 3 until said applied).
 */



describe('a declaration dropped before the stack that forgets was applied', () => {
  const p = consumer('p', 'p.events');
  const q = consumer('q', 'q.events');
  const r = consumer('r', 'r.events');

  it('previousTopology dropped while stack a was not applied with its removed blocks: refused until --applied a, or nothing lost', () => {
    const { world, refused, plans } = run([
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })])], apply: ['b'] },
      { specs: [topology('a', [p]), topology('b', [r, q])], apply: 'all' },
    ]);
    // What krt plan says of the drop (before the fix: needs-migration only, so it exited 0).
    expect(plans[1]!).toContainEqual(expect.stringMatching(/^destructive: stack 'a' no longer forgets 'q.events.dlq', .*krt synth refuses this until told `--applied a`/));
    expect({ refused, losses: world.losses }).toEqual({ refused: [expect.stringContaining('then drop the declaration with krt synth --applied a')], losses: [] });
  });

  it('previouslyManaged dropped while stack a was not applied with its removed block: refused until --applied a, or nothing lost', () => {
    const managed = (extra: Json = {}) => ({ ...q, topic: { name: 'q.events', partitions: 6, managed: true, ...extra } });
    const { world, refused, plans } = run([
      { specs: [topology('a', [p, managed()]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p, { ...q, topic: { name: 'q.events', partitions: 6, managed: false, previouslyManaged: true } }]), topology('b', [r])], apply: [] },
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all' },
    ]);
    // What krt plan says of the drop (before the fix: needs-migration at worst, so it exited 0).
    expect(plans[1]!).toContainEqual(expect.stringMatching(/^destructive: stack 'a' no longer forgets 'q.events'/));
    expect({ refused, losses: world.losses }).toEqual({ refused: [expect.stringContaining('then drop the declaration with krt synth --applied a')], losses: [] });
  });
});
