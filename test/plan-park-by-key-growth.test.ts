import type { ProjectModel } from '../src/model/types';
import { planChanges, worstRisk } from '../src/plan';
import { aConsumer, aTopology, compile } from './helpers/specs';

/*
 * A park-by-key consumer's held keys live in the state of main partition p: once its main
 * topic and tiers grow, a key's new records land on hash(key) % n, another partition whose
 * state does not hold the key, and run before the key's record still in a tier. Growth of
 * a topic a park-by-key consumer reads is needs-migration, never "safe" (finding 9b21ed3).
 */
function modelOf(...topologies: unknown[]): ProjectModel {
  const result = compile(...topologies);
  if (!result.model) throw new Error(result.diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n'));
  return result.model;
}
const consumer = (partitions: number, ordering: 'park-by-key' | 'unordered') => aTopology({ consumers: [aConsumer({ ordering, topic: { name: 'orders.confirmed', partitions } })] });

describe('the main topic of a park-by-key consumer grown from 12 to 24 partitions', () => {
  it('is safe for an unordered consumer', () => {
    expect(worstRisk(planChanges(modelOf(consumer(12, 'unordered')), modelOf(consumer(24, 'unordered'))))).toBe('safe');
  });

  it('is not called safe: keys move to other partitions while their held records wait in the tiers', () => {
    const plan = planChanges(modelOf(consumer(12, 'park-by-key')), modelOf(consumer(24, 'park-by-key')));
    expect(worstRisk(plan)).toBe('needs-migration');
    expect(plan.groups.flatMap((g) => g.changes).filter((c) => c.risk === 'needs-migration').map((c) => c.text)).toContainEqual(expect.stringContaining("'orders.confirmed.retry.1m' grows from 12 to 24 partitions, and park-by-key consumer"));
  });
});
