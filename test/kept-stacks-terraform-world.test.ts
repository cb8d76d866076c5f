import { consumer, run, topology } from './helpers/terraform-world';
import type { Json } from './helpers/terraform-world';

/*
 * Attack on finding D of #27 (a deleted topology's stack kept, generated empty): each
 * scenario runs what `krt synth` runs (compile, withRemovedStacks over the committed
 * model, guardChanges) and applies the generated stacks with a small model of Terraform
 * (a resource the configuration leaves out is destroyed; a topic created over one that
 * exists fails the apply). `krt plan` must not let through an apply that destroys a topic
 * the spec did not declare gone, nor one that fails.
 */


describe('a deleted topology whose kept, empty stack was not applied yet', () => {
  const orders = topology('orders', [consumer('billing', 'orders.confirmed')]);
  const refundsLive = consumer('refunds', 'refunds.requested');
  const refundsGone = consumer('refunds', 'refunds.requested', { decommissioned: true });

  // krt sees the same specs as in the next case, so it cannot tell the two apart: the
  // operator who applied the kept stack says so (krt synth --applied payments).
  it('deleted and applied at once, then the consumer declared again elsewhere: refused until the operator says the kept stack was applied, then nothing lost', () => {
    const steps = (applied?: string[]) => [
      { specs: [orders, topology('payments', [refundsLive])], apply: 'all' as const },
      { specs: [orders, topology('payments', [refundsGone])], apply: 'all' as const },
      { specs: [orders], apply: 'all' as const }, // the payments file deleted: its stack kept empty and applied
      { specs: [topology('orders', [consumer('billing', 'orders.confirmed'), refundsLive])], apply: 'all' as const, ...(applied ? { applied } : {}) },
    ];
    const unsaid = run(steps());
    expect(unsaid.refused).toEqual([expect.stringContaining("stack 'payments', kept (empty) since its topology file was deleted, may still hold them in its Terraform state")]);
    expect(unsaid.refused[0]).toContain('then run krt synth (or krt plan) again with --applied payments');
    const said = run(steps(['payments']));
    expect({ refused: said.refused, losses: said.world.losses }).toEqual({ refused: [], losses: [] });
  });

  // Was a defect: the committed model said the kept stack was empty, as if it had been
  // applied; krt says itself it cannot tell offline whether it was. A consumer of the same
  // name declared again in another topology before that apply created its topics over the
  // ones the kept stack's state still held (that apply failed), and the kept stack's apply
  // then deleted the live consumer's tiers and DLQ with their records. The plan called it
  // safe. The kept stack now carries what it last held, judged until it is said applied.
  it('the consumer declared again in another topology before the kept stack is applied: refused, and the plan says why', () => {
    const { world, refused, plans } = run([
      { specs: [orders, topology('payments', [refundsLive])], apply: 'all' },
      { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
      { specs: [orders], apply: ['orders'] }, // the payments file deleted; its kept stack not applied yet
      { specs: [topology('orders', [consumer('billing', 'orders.confirmed'), refundsLive])], apply: 'all' },
    ]);
    expect(plans[2]!.filter((line) => !line.startsWith('safe'))).toEqual([
      expect.stringMatching(/^destructive: 'refunds\.requested\.dlq', .* declared again in stack 'orders' while the kept stack 'payments' of a deleted topology may still hold them/),
    ]);
    expect(refused).toEqual([expect.stringContaining("consumer 'refunds' declares 'refunds.requested.dlq', 'refunds.requested.dlq.audit', 'refunds.requested.retry.10m', 'refunds.requested.retry.1m' again in stack 'orders'")]);
    expect(world.losses).toEqual([]);
  });

  it('the consumer declared again in a topology other than the unchanged one carrying the kept stack: refused too', () => {
    const shipping = (consumers: Json[]) => topology('shipping', consumers);
    const ledger = consumer('ledger', 'shipments.sent');
    const { world, refused } = run([
      { specs: [orders, topology('payments', [refundsGone]), shipping([ledger])], apply: 'all' },
      { specs: [orders, shipping([ledger])], apply: ['orders', 'shipping'] }, // 'orders' carries the kept stack
      { specs: [orders, shipping([ledger, refundsLive])], apply: 'all' },
    ]);
    expect(refused).toEqual([expect.stringContaining("consumer 'refunds' declares 'refunds.requested.dlq', 'refunds.requested.dlq.audit', 'refunds.requested.retry.10m', 'refunds.requested.retry.1m' again in stack 'shipping'")]);
    expect(world.losses).toEqual([]);
  });

  it('an ACL the kept stack may still hold, declared again for another consumer of the same principal: refused until said applied', () => {
    const v2 = consumer('refunds-v2', 'refunds.requested', { principal: 'User:refunds', retryTopicBase: 'refunds.requested.v2' });
    const steps = (applied?: string[]) => [
      { specs: [orders, topology('payments', [refundsGone])], apply: 'all' as const },
      { specs: [orders], apply: ['orders'] },
      { specs: [topology('orders', [consumer('billing', 'orders.confirmed'), v2])], apply: 'all' as const, ...(applied ? { applied } : {}) },
    ];
    expect(run(steps()).refused).toEqual([
      expect.stringContaining("stack 'orders' declares the ACL User:refunds Read Topic 'refunds.requested', but stack 'payments', kept (empty) since its topology file was deleted, may still hold it"),
    ]);
    expect(run(steps(['payments'])).refused).toEqual([]);
  });

  it('a kept stack said applied when it was not: the operator\'s word is what krt goes by, so the loss is theirs (control)', () => {
    const { world, refused } = run([
      { specs: [orders, topology('payments', [refundsLive])], apply: 'all' },
      { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
      { specs: [orders], apply: ['orders'] },
      { specs: [topology('orders', [consumer('billing', 'orders.confirmed'), refundsLive])], apply: 'all', applied: ['payments'] },
    ]);
    expect(refused).toEqual([]);
    expect(world.losses).toContain("apply of 'orders' creates 'refunds.requested.dlq', which exists: the apply fails");
  });

  it('--applied naming a stack krt does not keep is a usage error that lists the kept ones', () => {
    expect(() => run([
      { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
      { specs: [orders], apply: 'all' },
      { specs: [orders], apply: 'all', applied: ['paymnets'] },
    ])).toThrow("--applied paymnets: not a stack of the committed output (the stacks whose state may still hold what they no longer declare are 'payments'); name only stacks you applied");
  });

  it('held: renamed onto the deleted name (refused without previousName), two deleted and one restored, restored live', () => {
    const ledgerLive = consumer('ledger', 'payments.settled');
    const ledgerGone = consumer('ledger', 'payments.settled', { decommissioned: true });
    const billing = consumer('billing', 'orders.confirmed');
    const renamedOntoTheDeletedName = (applied?: string[]) =>
      run([
        { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
        { specs: [orders], apply: ['orders'] },
        { specs: [topology('payments', [billing], { previousName: 'orders' })], apply: 'all', ...(applied ? { applied } : {}) },
      ]);
    // The renamed topology takes the kept stack 'payments' over, and with it what its state may
    // still hold (refunds' topics, deleted by its next apply as the plan said): declaring them
    // again elsewhere stays refused until 'payments' is said applied (attack 33, finding 2).
    const redeclared = run([
      { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
      { specs: [orders], apply: ['orders'] },
      { specs: [topology('payments', [billing], { previousName: 'orders' })], apply: [] },
      { specs: [topology('payments', [billing], { previousName: 'orders' }), topology('refunds', [refundsLive])], apply: 'all' },
    ]);
    expect(redeclared.refused).toEqual([expect.stringContaining("again in stack 'refunds', but stack 'payments', whose configuration no longer declares them since a synth deleted them, may still hold them")]);
    const held = {
      renamedOntoTheDeletedName: renamedOntoTheDeletedName(),
      renamedThenAppliedThenRedeclared: run([
        { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
        { specs: [orders], apply: ['orders'] },
        { specs: [topology('payments', [billing], { previousName: 'orders' })], apply: 'all' },
        { specs: [topology('payments', [billing]), topology('refunds', [refundsLive])], apply: 'all', applied: ['payments', 'orders'] },
      ]),
      twoDeletedOneRestored: run([
        { specs: [orders, topology('payments', [refundsGone]), topology('shipping', [ledgerGone])], apply: 'all' },
        { specs: [orders], apply: ['orders'] },
        { specs: [orders, topology('shipping', [ledgerLive])], apply: 'all' },
      ]),
      restoredLive: run([
        { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
        { specs: [orders], apply: ['orders'] },
        { specs: [orders, topology('payments', [refundsLive])], apply: 'all' },
      ]),
    };
    for (const r of Object.values(held)) expect({ refused: r.refused, losses: r.world.losses }).toEqual({ refused: [], losses: [] });
    // The former stack 'orders' took its own principals' ACLs out of its configuration: previousName goes once it is said applied (attack 35).
    const droppedBeforeSaid = run([
      { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
      { specs: [orders], apply: ['orders'] },
      { specs: [topology('payments', [billing], { previousName: 'orders' })], apply: 'all' },
      { specs: [topology('payments', [billing])], apply: 'all', applied: ['payments'] },
    ]);
    expect(droppedBeforeSaid.refused).toEqual([
      expect.stringContaining("stack 'orders' would no longer be generated while its Terraform state holds 0 topics and 31 ACLs"),
      expect.stringContaining("stack 'orders' would no longer forget 'orders.confirmed.dlq'"),
    ]);
    for (const refusal of droppedBeforeSaid.refused) expect(refusal).toContain('--applied orders');
    const renamedWithout = run([
      { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
      { specs: [orders], apply: ['orders'] },
      { specs: [topology('payments', [billing])], apply: 'all' },
    ]);
    expect(renamedWithout.refused).toEqual([expect.stringContaining("consumer 'billing' moved from topology 'orders' to 'payments'")]);
  });

  // Noticed in session 43: refused as importing a topic "which no stack held before".
  it('a consumer brought back from the kept stack by a move: refused for what it is, and the way the refusal gives keeps the records', () => {
    const refundsBack = consumer('refunds', 'refunds.requested', { previousTopology: 'payments' });
    const moved = run([
      { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
      { specs: [orders], apply: ['orders'] },
      { specs: [orders, topology('refunds', [refundsBack], { previousName: 'payments' })], apply: 'all' },
    ]);
    expect(moved.refused).toEqual(expect.arrayContaining([expect.stringContaining("stack 'refunds' would import 'refunds.requested.dlq', which an earlier synth took out of the kept stack 'payments' of a deleted topology file (a consumer removed, a tier dropped, a topology file deleted): that stack may still hold it")]));
    // As it says: declared again where it was (the kept stack not applied), then moved.
    const wayOut = run([
      { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
      { specs: [orders], apply: ['orders'] },
      { specs: [orders, topology('payments', [refundsGone])], apply: 'all' },
      { specs: [orders, topology('refunds', [refundsBack], { previousName: 'payments' })], apply: 'all' },
    ]);
    expect({ refused: wayOut.refused, losses: wayOut.world.losses }).toEqual({ refused: [], losses: [] });
    expect(wayOut.world.topics.has('refunds.requested.dlq')).toBe(true);
  });

  // The same defect when the topology that carries the kept stack is itself deleted: the
  // kept stack moves to the next topology, and was still judged empty.
  it('the kept stack carried over after its host topology is deleted too: refused, or nothing lost', () => {
    const ledgerLive = consumer('ledger', 'payments.settled');
    const { world, refused, plans } = run([
      { specs: [topology('analytics', [ledgerLive]), topology('aaa', [consumer('billing', 'orders.confirmed', { decommissioned: true })]), topology('payments', [refundsGone])], apply: 'all' },
      { specs: [topology('analytics', [ledgerLive]), topology('aaa', [consumer('billing', 'orders.confirmed', { decommissioned: true })])], apply: ['aaa', 'analytics'] },
      { specs: [topology('analytics', [ledgerLive])], apply: ['analytics'] },
      { specs: [topology('analytics', [ledgerLive, refundsLive])], apply: 'all' },
    ]);
    expect(plans[2]!.filter((line) => !line.startsWith('safe'))).toEqual([expect.stringContaining("the kept stack 'payments' of a deleted topology may still hold them")]);
    expect(refused).toEqual([expect.stringContaining("consumer 'refunds' declares")]);
    expect(world.losses).toEqual([]);
  });
});

// Attack 33, finding 6: the live-stack twin of the above. A synth that takes a consumer out
// of a topology that stays only writes configuration; the stack's state holds the topics
// until it is applied, and krt must remember that as it does for a kept stack.
describe('a consumer removed from a topology that stays, whose stack was not applied yet', () => {
  const p = consumer('p', 'p.events');
  const qGone = consumer('q', 'q.events', { decommissioned: true });
  const qLive = consumer('q', 'q.events');
  const r = consumer('r', 'r.events');

  it('declared again in another topology before that apply: refused, and the plan says why', () => {
    const { world, refused, plans } = run([
      { specs: [topology('a', [p, qGone]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r])], apply: [] },
      { specs: [topology('a', [p]), topology('b', [r, qLive])], apply: 'all' },
    ]);
    expect(refused).toEqual([expect.stringContaining("consumer 'q' declares 'q.events.dlq', 'q.events.dlq.audit', 'q.events.retry.10m', 'q.events.retry.1m' again in stack 'b', but stack 'a', whose configuration no longer declares them since a synth deleted them, may still hold them")]);
    expect(plans[1]!.filter((line) => !line.startsWith('safe'))).toEqual([expect.stringContaining("while stack 'a', whose configuration no longer declares them, may still hold them")]);
    expect(world.losses).toEqual([]);
  });

  it('declared again elsewhere once the operator says the stack was applied: nothing lost', () => {
    const { world, refused } = run([
      { specs: [topology('a', [p, qGone]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r])], apply: ['a'] },
      { specs: [topology('a', [p]), topology('b', [r, qLive])], apply: 'all', applied: ['a'] },
    ]);
    expect({ refused, losses: world.losses }).toEqual({ refused: [], losses: [] });
  });

  it('remembered across unrelated edits of both topologies, and across the topology being deleted', () => {
    const s = consumer('s', 's.events');
    const later = run([
      { specs: [topology('a', [p, qGone]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r])], apply: [] },
      { specs: [topology('a', [p, s]), topology('b', [r])], apply: ['b'] },
      { specs: [topology('a', [p, s]), topology('b', [r, qLive])], apply: 'all' },
    ]);
    expect(later.refused).toEqual([expect.stringContaining("again in stack 'b', but stack 'a'")]);
    const deleted = run([
      { specs: [topology('a', [consumer('p', 'p.events', { decommissioned: true }), qGone]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [consumer('p', 'p.events', { decommissioned: true })]), topology('b', [r])], apply: [] },
      { specs: [topology('b', [r])], apply: ['b'] },
      { specs: [topology('b', [r, qLive])], apply: 'all' },
    ]);
    expect(deleted.refused).toEqual([expect.stringContaining("again in stack 'b', but stack 'a', kept (empty) since its topology file was deleted")]);
    expect({ later: later.world.losses, deleted: deleted.world.losses }).toEqual({ later: [], deleted: [] });
  });

  it('declared again in its own stack: accepted, nothing lost, and no longer remembered', () => {
    const { world, refused } = run([
      { specs: [topology('a', [p, qGone]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r])], apply: [] },
      { specs: [topology('a', [p, qLive]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p, qGone]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, qLive])], apply: 'all', applied: ['a'] },
    ]);
    expect({ refused, losses: world.losses }).toEqual({ refused: [], losses: [] });
  });
});
