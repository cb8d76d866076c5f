/*
 * Attack 39: a partial synth naming one file twice.
 *
 * Scenario: topologies/a.ts and b.ts synthesized; a consumer is added to a.ts and the engineer
 * runs `krt synth topologies/a.ts ./topologies/a.ts` (two globs or lists that overlap, e.g.
 * `krt synth topologies/a*.ts $(git diff --name-only)`).
 *
 * Seen: exit 1, "consumer 'p' is already defined at topologies/a.ts consumers[0]", "consumer
 * group 'p' ... is also the group of consumer 'p'", topics "also generated for consumer 'p'":
 * every consumer of a.ts clashes with itself. A full synth of the same tree writes it. The
 * refusal is fail-safe but names a clash that is not in the spec, and its suggested fixes
 * (rename the consumer, give it its own group) would break a consumer that is fine.
 *
 * Fault: resolveTopologyFiles (src/cli/topology-files.ts) resolves each argument to an
 * absolute path but keeps duplicates; compile loads the file twice.
 *
 * Suggested fix: dedupe (and sort) the resolved files in resolveTopologyFiles.
 *
 * Fixed (session 44): cli/topology-files.ts resolveTopologyFiles takes, for synth, plan and
 * cdktf, only the project's topology files, each once, in a full run's order.
 */
import { mkdirSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

jest.setTimeout(120_000);

it('krt synth topologies/a.ts ./topologies/a.ts does what krt synth topologies/a.ts does', async () => {
  const P = new ScratchProject(false);
  try {
    mkdirSync(P.path('topologies'));
    P.write('topologies/a.ts', topology('a', [consumer('p')]));
    P.write('topologies/b.ts', topology('b', [consumer('r')]));
    expect((await P.krt('synth')).code).toBe(0);
    P.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q')]));
    const twice = await P.krt('synth', 'topologies/a.ts', './topologies/a.ts');
    expect({ code: twice.code, stderr: twice.stderr }).toEqual({ code: 0, stderr: '' });
    expect((await P.krt('synth', '--check')).code).toBe(0);
  } finally {
    P.remove();
  }
});
