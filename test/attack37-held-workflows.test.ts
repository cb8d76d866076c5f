import { consumer, run, topology } from './helpers/terraform-world';
import type { Json } from './helpers/terraform-world';



const p = consumer('p', 'p.events');
const q = consumer('q', 'q.events');
const r = consumer('r', 'r.events');
const show = (x: ReturnType<typeof run>) => ({ refused: x.refused, losses: x.world.losses });

/*
 * Attack 37: documented workflows in the small Terraform world (the harness of
 * attack36-dropped-declaration-unapplied.test.ts, with drained tiers counted as declared gone)
 * that held: each is accepted when the operator says --applied only for stacks applied, and
 * nothing is lost. Hand-overs of managed main topics back and forth between topologies, a drained
 * tier dropped before a rename, a rename and back, chained moves, moves crossing in one commit, a
 * moved consumer removed at its new home, a topology deleted in the step that drops a move, a
 * consumer removed and its file deleted unapplied, then brought back elsewhere.
 */
describe('attack 37: workflows that hold', () => {
  it('S4 management passes a -> b and back', () => {
    const x = (t: Json) => ({ ...q, topic: { name: 'q.events', partitions: 6, ...t } });
    const y = (t: Json) => ({ ...r, retryTopicBase: 'q.events.r', topic: { name: 'q.events', partitions: 6, ...t } });
    expect(show(run([
      { specs: [topology('a', [p, x({ managed: true })]), topology('b', [y({})])], apply: 'all' },
      { specs: [topology('a', [p, x({ managed: false, previouslyManaged: true })]), topology('b', [y({ managed: true, previouslyManaged: false })])], apply: 'all' },
      { specs: [topology('a', [p, x({})]), topology('b', [y({ managed: true })])], apply: 'all', applied: ['a'] },
      { specs: [topology('a', [p, x({ managed: true, previouslyManaged: false })]), topology('b', [y({ managed: false, previouslyManaged: true })])], apply: 'all' },
      { specs: [topology('a', [p, x({ managed: true })]), topology('b', [y({})])], apply: 'all', applied: ['b'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S6 drained tier dropped, rename, drop previousName', () => {
    const pr = consumer('p', 'p.events', { retired: ['10m'], ladder: ['1m'] });
    const p1 = consumer('p', 'p.events', { ladder: ['1m'] });
    expect(show(run([
      { specs: [topology('a', [p, q])], apply: 'all' },
      { specs: [topology('a', [pr, q])], apply: 'all' },
      { specs: [topology('a', [p1, q])], apply: [] },
      { specs: [topology('a2', [p1, q], { previousName: 'a' })], apply: 'all' },
      { specs: [topology('a2', [p1, q])], apply: 'all', applied: ['a'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S11 chain move a->b->c', () => {
    expect(show(run([
      { specs: [topology('a', [p, q]), topology('b', [r]), topology('c', [consumer('s', 's.events')])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })]), topology('c', [consumer('s', 's.events')])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r]), topology('c', [consumer('s', 's.events'), consumer('q', 'q.events', { previousTopology: 'b' })])], apply: 'all', applied: ['a'] },
      { specs: [topology('a', [p]), topology('b', [r]), topology('c', [consumer('s', 's.events'), q])], apply: 'all', applied: ['b'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S12 rename a->a2 and back', () => {
    expect(show(run([
      { specs: [topology('a', [p, q])], apply: 'all' },
      { specs: [topology('a2', [p, q], { previousName: 'a' })], apply: 'all' },
      { specs: [topology('a2', [p, q])], apply: 'all', applied: ['a'] },
      { specs: [topology('a', [p, q], { previousName: 'a2' })], apply: 'all' },
      { specs: [topology('a', [p, q])], apply: 'all', applied: ['a2'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S13 rename back before dropping previousName', () => {
    expect(show(run([
      { specs: [topology('a', [p, q])], apply: 'all' },
      { specs: [topology('a2', [p, q], { previousName: 'a' })], apply: 'all' },
      { specs: [topology('a', [p, q], { previousName: 'a2' })], apply: 'all', applied: ['a'] },
      { specs: [topology('a', [p, q])], apply: 'all', applied: ['a2'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S14 move q a->b and drop previousTopology, applying with --applied a in the same step as moving r b->a', () => {
    expect(show(run([
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })])], apply: 'all' },
      { specs: [topology('a', [p, consumer('r', 'r.events', { previousTopology: 'b' })]), topology('b', [q])], apply: 'all', applied: ['a'] },
      { specs: [topology('a', [p, r]), topology('b', [q])], apply: 'all', applied: ['b'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S15 move q and its return in one go: q a->b, then q b->a', () => {
    expect(show(run([
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })])], apply: 'all' },
      { specs: [topology('a', [p, consumer('q', 'q.events', { previousTopology: 'b' })]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all', applied: ['b'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S16 remove q from a after it moved in (previousTopology kept) ', () => {
    expect(show(run([
      { specs: [topology('a', [p, q]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a', decommissioned: true })])], apply: 'all' },
      { specs: [topology('a', [p]), topology('b', [r])], apply: 'all', applied: ['a'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S17 move q a->b, apply, then delete topology a (decommissioned p), drop previousTopology with applied a in the same step', () => {
    const pg = consumer('p', 'p.events', { decommissioned: true });
    expect(show(run([
      { specs: [topology('a', [pg, q]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [pg]), topology('b', [r, consumer('q', 'q.events', { previousTopology: 'a' })])], apply: 'all' },
      { specs: [topology('b', [r, q])], apply: 'all', applied: ['a'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
  it('S18 consumer removed and file deleted the same step: then restored', () => {
    const pg = consumer('p', 'p.events', { decommissioned: true });
    const qg = consumer('q', 'q.events', { decommissioned: true });
    expect(show(run([
      { specs: [topology('a', [pg, qg]), topology('b', [r])], apply: 'all' },
      { specs: [topology('a', [pg]), topology('b', [r])], apply: [] },
      { specs: [topology('b', [r])], apply: 'all' },
      { specs: [topology('b', [r, q])], apply: 'all', applied: ['a'] },
    ]))).toEqual({ refused: [], losses: [] });
  });
});
