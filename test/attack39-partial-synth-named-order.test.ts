/*
 * Attack 39: a partial synth naming every topology file, not in file order.
 *
 * Scenario: topologies/a.ts and topologies/b.ts, synthesized. Both are edited (a consumer
 * added to each) and the engineer runs `krt synth topologies/b.ts topologies/a.ts` (the order
 * of a `git diff --name-only`, an editor's list, or a glob of their own). Found by a random
 * partial/full twin run (test/attack39-random-twins.test.ts, seeds 36 and 44: a move across
 * files after a file deletion, both files named in reverse order).
 *
 * Seen: exit 0, but generated/.krt-model.json lists topology b before a; `krt synth --check`
 * right after exits 1 ("differs generated/.krt-model.json"), and a full synth then rewrites
 * the snapshot. A partial and a full run of the same tree write different bytes.
 *
 * Fault: withUntouched (src/plan/partial.ts) sorts the topologies by file only when it keeps
 * some committed topology; when every other topology's file is named or gone (kept.length
 * === 0) it returns the compiled model in command-line order.
 *
 * Suggested fix: sort by source file in every case (or resolveTopologyFiles sorts and dedups
 * the named files as discoverTopologyFiles does).
 *
 * Fixed (session 44): cli/topology-files.ts resolveTopologyFiles takes, for synth, plan and
 * cdktf, only the project's topology files, each once, in a full run's order.
 */
import { mkdirSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

jest.setTimeout(120_000);

it('krt synth topologies/b.ts topologies/a.ts writes what a full synth writes: --check passes right after', async () => {
  const P = new ScratchProject(false);
  try {
    mkdirSync(P.path('topologies'));
    P.write('topologies/a.ts', topology('a', [consumer('p')]));
    P.write('topologies/b.ts', topology('b', [consumer('r')]));
    expect((await P.krt('synth')).code).toBe(0);
    P.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q')]));
    P.write('topologies/b.ts', topology('b', [consumer('r'), consumer('s')]));
    expect((await P.krt('synth', 'topologies/b.ts', 'topologies/a.ts')).code).toBe(0);
    const check = await P.krt('synth', '--check');
    expect({ code: check.code, stderr: check.stderr }).toEqual({ code: 0, stderr: '' });
  } finally {
    P.remove();
  }
});
