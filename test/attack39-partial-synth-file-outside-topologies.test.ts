/*
 * Attack 39: a partial synth of a file that is no topology file of the project.
 *
 * Scenario: topologies/a.ts is synthesized. An engineer drafts a new topology in
 * drafts/x.ts (or topologies/sub/x.ts, or any path a full run never reads) and runs
 * `krt synth drafts/x.ts` (then could `krt cdktf drafts/x.ts`).
 *
 * Seen: exit 0, stack generated/terraform/x is written and the snapshot records topology x
 * with source drafts/x.ts. Right after, `krt synth --check` exits 1 (x's outputs stale),
 * `krt plan` exits 1 and `krt synth` refuses: the full run never loads drafts/x.ts, so it
 * takes x for a deleted topology whose consumer 'q' was removed undecommissioned. The
 * partial and full runs disagree on the same tree; the refusal's way out ("put it back with
 * decommissioned: true") cannot be done in a file the full run does not read.
 *
 * Fault: resolveTopologyFiles (src/cli/topology-files.ts) accepts any existing path, and
 * withUntouched/compile take it as one of the project's topology files. A full run only reads
 * discoverTopologyFiles (topologies/*.ts, not *.d.ts).
 *
 * Suggested fix: a partial run refuses (usage error, exit 2) a named file that is not one
 * discoverTopologyFiles would list, saying topology files live in topologies/*.ts.
 *
 * Fixed (session 44): cli/topology-files.ts resolveTopologyFiles takes, for synth, plan and
 * cdktf, only the project's topology files, each once, in a full run's order.
 */
import { mkdirSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

jest.setTimeout(120_000);

it('a partial synth of a file outside topologies/ is refused, or a full --check agrees right after', async () => {
  const P = new ScratchProject(false);
  try {
    mkdirSync(P.path('topologies'));
    mkdirSync(P.path('drafts'));
    P.write('topologies/a.ts', topology('a', [consumer('p')]));
    expect((await P.krt('synth')).code).toBe(0);
    P.write('drafts/x.ts', topology('x', [consumer('q')]));
    const partial = await P.krt('synth', 'drafts/x.ts');
    if (partial.code === 0) {
      // What it wrote must be what a full run writes: --check right after passes.
      const check = await P.krt('synth', '--check');
      expect({ code: check.code, stderr: check.stderr }).toEqual({ code: 0, stderr: '' });
    } else {
      expect(partial.code).toBe(2);
    }
  } finally {
    P.remove();
  }
});
