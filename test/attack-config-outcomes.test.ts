import type { ProjectModel } from '../src/model/types';
import { planChanges, worstRisk } from '../src/plan';
import { aConsumer, aTopology, compile } from './helpers/specs';

/*
 * Attack on the config judgment (src/plan/config-changes.ts): the provider sets a topic's
 * configs to exactly its block's map, and the plan classes a change by what it does to
 * the records already in the topic. Two changes that delete records are told "safe" or
 * not told at all:
 * - tiered storage turned off with remote.log.delete.on.disable=true (KIP-950, Kafka 3.9+)
 *   deletes every remote segment: every record older than the local retention is gone;
 *   the plan prints "safe: config remote.storage.enable: true -> false";
 * - a retention.ms dropped from the map makes the topic take the CLUSTER's default
 *   (log.retention.ms/hours), which the plan takes for Kafka's shipped default of 7 days
 *   (BROKER_DEFAULTS): on a cluster that keeps one day, an explicit 7 days dropped deletes
 *   six days of records, and the plan says nothing.
 */
function modelOf(...topologies: unknown[]): ProjectModel {
  const result = compile(...topologies);
  if (!result.model) throw new Error(result.diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n'));
  return result.model;
}
const managed = (config: Record<string, string>) => modelOf(aTopology({ consumers: [aConsumer({ topic: { name: 'orders.confirmed', partitions: 12, managed: true, config } })] }));
const lines = (before: ProjectModel, after: ProjectModel) => planChanges(before, after).groups.flatMap((g) => g.changes.map((c) => `${c.risk}: ${c.text}`)).filter((l) => !l.includes('ACL'));

describe('config changes of a managed main topic that delete records', () => {
  it('calls a shorter explicit retention what it is (held)', () => {
    const plan = planChanges(managed({ 'retention.ms': '604800000' }), managed({ 'retention.ms': '86400000' }));
    expect(worstRisk(plan)).not.toBe('safe');
  });

  // Defect: remote.storage.enable is not among the configs judged; any other key is "safe".
  it.failing('does not call turning tiered storage off with remote.log.delete.on.disable safe', () => {
    const before = managed({ 'retention.ms': '2592000000', 'remote.storage.enable': 'true', 'local.retention.ms': '86400000' });
    const after = managed({ 'retention.ms': '2592000000', 'remote.storage.enable': 'false', 'remote.log.delete.on.disable': 'true', 'local.retention.ms': '86400000' });
    expect(lines(before, after)).toEqual(expect.arrayContaining([expect.stringMatching(/^(needs-migration|destructive): .*remote\.storage\.enable/)]));
  });

  // Defect: effective() fills a missing key with Kafka's shipped default (7 days), not the
  // cluster's; the key leaving the map is a change Terraform applies, and nothing is told.
  it.failing('tells that an explicit retention.ms leaves the map, so the cluster default applies', () => {
    const before = managed({ 'retention.ms': '604800000' });
    const after = managed({});
    expect(lines(before, after)).toEqual(expect.arrayContaining([expect.stringContaining('retention.ms')]));
  });
});
