import type { ProjectModel } from '../src/model/types';
import { planChanges, worstRisk } from '../src/plan';
import { aConsumer, aTopology, compile } from './helpers/specs';

/*
 * The provider sets a topic's configs to exactly its block's map, and the plan classes a
 * config change by what it does to the records already in the topic (finding 35751fc):
 * - tiered storage turned off with remote.log.delete.on.disable=true (KIP-950) deletes
 *   every remote segment: every record older than the local retention is gone;
 * - an explicit retention.ms that leaves the map makes the topic take the CLUSTER's
 *   default, which krt cannot see offline (not always Kafka's shipped 7 days).
 */
function modelOf(...topologies: unknown[]): ProjectModel {
  const result = compile(...topologies);
  if (!result.model) throw new Error(result.diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n'));
  return result.model;
}
const managed = (config: Record<string, string>) => modelOf(aTopology({ consumers: [aConsumer({ topic: { name: 'orders.confirmed', partitions: 12, managed: true, config } })] }));
const lines = (before: ProjectModel, after: ProjectModel) => planChanges(before, after).groups.flatMap((g) => g.changes.map((c) => `${c.risk}: ${c.text}`)).filter((l) => !l.includes('ACL'));

describe('config changes of a managed main topic that delete records', () => {
  it('calls a shorter explicit retention what it is', () => {
    const plan = planChanges(managed({ 'retention.ms': '604800000' }), managed({ 'retention.ms': '86400000' }));
    expect(worstRisk(plan)).not.toBe('safe');
  });

  it('does not call turning tiered storage off with remote.log.delete.on.disable safe', () => {
    const before = managed({ 'retention.ms': '2592000000', 'remote.storage.enable': 'true', 'local.retention.ms': '86400000' });
    const after = managed({ 'retention.ms': '2592000000', 'remote.storage.enable': 'false', 'remote.log.delete.on.disable': 'true', 'local.retention.ms': '86400000' });
    expect(lines(before, after)).toEqual(expect.arrayContaining([expect.stringMatching(/^(needs-migration|destructive): .*remote\.storage\.enable/)]));
  });

  it('tells that an explicit retention.ms leaves the map, so the cluster default applies', () => {
    const before = managed({ 'retention.ms': '604800000' });
    const after = managed({});
    expect(lines(before, after)).toEqual(expect.arrayContaining([expect.stringContaining('retention.ms')]));
  });
});
