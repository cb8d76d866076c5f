import { mkdirSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * Attack 38, finding 3 (minor; class: a partial run and a full run disagree on stderr).
 *
 * Scenario: a.ts (consumer p reading 'p.events'), b.ts (r); krt synth. b.ts gains consumer p2 reading
 * 'p_events' (a name that collides with 'p.events' in Kafka's metric names).
 *
 * Seen: `krt synth` and `krt plan topologies/b.ts` print four warnings ("topics 'p.events' and
 * 'p_events' differ only in '.' and '_', which collide in Kafka's metric names"); `krt synth
 * topologies/b.ts` prints nothing on stderr (exit 0 in both). The one place the developer runs on
 * the file they edit hides the warning the full synth gives. Its summary also counts only the named
 * files' topologies ("synthesized 1 topology, 2 consumers") for a model of 2 topologies and 3 consumers.
 *
 * At fault: src/synth/synthesize.ts: `acrossFiles(merged)` is consulted only for errors
 * (`if (hasErrors(clashes)) return invalid`); its warnings are dropped when there are none, while
 * plan-command reports them.
 *
 * Suggested fix: carry acrossFiles' warnings into the result's diagnostics (as compiled.diagnostics
 * plus the new ones, deduplicated) so synth-command reports them in both cases.
 *
 * Fixed (session 44): plan/partial.ts withUntouched keeps a committed topology only while its
 * file stands and is not named; acrossFiles' warnings are told (synthesize.ts, plan, cdktf).
 */

jest.setTimeout(180_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
});
afterEach(() => project.remove());

it('a partial synth tells the warnings across files that a full synth tells', async () => {
  project.write('topologies/a.ts', topology('a', [consumer('p')]));
  project.write('topologies/b.ts', topology('b', [consumer('r')]));
  expect((await project.krt('synth')).code).toBe(0);
  project.write('topologies/b.ts', topology('b', [consumer('r'), "{ name: 'p2', topic: { name: 'p_events', partitions: 6 }, principal: 'User:p2', ladder: ['1m', '10m'] }"]));
  const partial = await project.krt('synth', 'topologies/b.ts');
  const full = await project.krt('synth');
  expect(full.stderr).toContain("topics 'p.events' and 'p_events' differ only in '.' and '_'");
  // Today: partial.stderr is ''.
  expect({ code: partial.code, stderr: partial.stderr }).toEqual({ code: full.code, stderr: full.stderr });
});
