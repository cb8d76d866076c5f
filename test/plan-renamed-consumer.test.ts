import type { ProjectModel } from '../src/model/types';
import { guardChanges, planChanges } from '../src/plan';
import { aConsumer, aTopology, compile } from './helpers/specs';

/*
 * A renamed consumer keeps its topics (they derive from the main topic), so Terraform sees
 * no change; but its groups default to its name, and a new main group starts from the
 * beginning of the main topic. Consumers are paired as Kafka sees them (by the DLQ they
 * keep), so a rename is told like a `group:` change and cannot slip an ordering switch past
 * its refusal (finding d6fa0d3: they were paired by name).
 */
function modelOf(...topologies: unknown[]): ProjectModel {
  const result = compile(...topologies);
  if (!result.model) throw new Error(result.diagnostics.map((d) => `${d.path}: ${d.message}`).join('\n'));
  return result.model;
}
const planLines = (before: ProjectModel, after: ProjectModel) => planChanges(before, after).groups.flatMap((g) => g.changes.map((c) => `${c.risk}: ${c.text}`));
const refusals = (before: ProjectModel, after: ProjectModel) => guardChanges(before, after).map((d) => d.message);

const mainGroupMoves = "needs-migration: the group that reads the main topic changes from 'billing-order-confirmed' to 'billing'";

describe('a consumer renamed, its groups following its name', () => {
  const before = modelOf(aTopology({ consumers: [aConsumer({ criticality: 'money' })] }));

  it('tells the change of the main group when it is made with group:', () => {
    const after = modelOf(aTopology({ consumers: [aConsumer({ criticality: 'money', group: 'billing' })] }));
    expect(planLines(before, after)).toContainEqual(expect.stringContaining(mainGroupMoves));
  });

  it('tells the same change of the main group when the consumer is renamed', () => {
    const after = modelOf(aTopology({ consumers: [aConsumer({ name: 'billing', criticality: 'money' })] }));
    expect(planLines(before, after)).toContainEqual(expect.stringContaining(mainGroupMoves));
  });

  it('refuses a switch to park-by-key, whose group would run every retained tier record again', () => {
    const after = modelOf(aTopology({ consumers: [aConsumer({ criticality: 'money', ordering: 'park-by-key' })] }));
    expect(refusals(before, after)).toContainEqual(expect.stringContaining("switching ordering from 'unordered' to 'park-by-key'"));
  });

  it('refuses the same switch when the consumer is renamed in the same edit', () => {
    const after = modelOf(aTopology({ consumers: [aConsumer({ name: 'billing', criticality: 'money', ordering: 'park-by-key' })] }));
    expect(refusals(before, after)).toContainEqual(expect.stringContaining('switching ordering'));
  });
});
