import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource, topologyOf as topology } from './helpers/topology-source';

/*
 * Attack 33, finding 1 (class: an interrupted synth leaves generated/ in a state where the
 * next synth loses a guard; records can be lost).
 *
 * Scenario:
 *  1. Topologies `a` (consumer a-consumer) and `c` (consumer x, decommissioned), synthesized.
 *  2. topologies/c.ts is deleted (step 2 of removing x) and `krt synth` runs. It writes, in
 *     order, the topology outputs (terraform/a, then terraform/c as the kept, EMPTY stack),
 *     the other emitters' files, then .krt-model.json (with the kept stack c and its
 *     `mayHold`: the topics its unapplied state still holds), then the manifest. The process
 *     is killed after terraform/c/cdk.tf.json was written and before the snapshot was
 *     (`timeout -s KILL 0.75 node dist/cli/main.js synth` in a two-topology scratch repo hits
 *     it; here the kill is simulated by failing the snapshot's write).
 *  3. `krt synth` again: it completes. Nothing is refused, and `krt plan` before it listed
 *     only safe ACL lines (no destructive "consumer removed" line at all).
 *  4. Consumer x is declared again in topology a (not applied stack c yet).
 *
 * Seen: step 4 is accepted ("safe: new consumer: creates 'x.events.dlq' ..."). Without the
 * kill, step 4 is refused ("stack 'c', kept (empty) since its topology file was deleted, may
 * still hold them ... --applied c"): applying 'a' fails to create topics that exist, and
 * applying 'c' afterwards deletes them with every record consumer x now writes there.
 *
 * At fault: src/plan/removed-stacks.ts `heldBy` takes what a just-deleted topology's kept stack
 * may hold from the committed stack file alone when there is one (here the crashed run's empty
 * file, never applied), not from the snapshot that still names the topology; and
 * src/plan/outcome.ts `committedAhead` only looks for topics a committed stack holds that the
 * snapshot does not name, never for topics the snapshot names that the committed stack lacks,
 * so `stacksBefore` takes the empty file for the state and sees no deletion. Underneath,
 * src/synth/synthesize.ts writes the stacks before the snapshot with nothing marking the
 * folder as half-written.
 *
 * Suggested fix: judge a topology's stacks as the union of the committed file and what the
 * snapshot synthesizes (a committed stack lacking a topic the snapshot names is "behind" and
 * must not stand for the state), and make `heldBy` use that union; or write a marker before
 * the first output file and remove it after the manifest, refusing to run while it is there.
 *
 * Fixed (session 43) the second way, for the class (any synth cut short, whatever it had
 * written): `.krt-writing` stands from a synth's first write to the end of its manifest
 * (src/writer/writing-marker.ts), and synth, synth --check and plan refuse a folder that has
 * it, saying how to restore it, instead of judging against files of two synths.
 */

jest.setTimeout(120_000);

/** The path whose write "kills" the synth: checked by the mocked OutputFolder. */
let mockKillBefore: string | undefined;
jest.mock('../src/writer/write-generated', () => {
  const actual = jest.requireActual('../src/writer/write-generated');
  class KilledFolder extends actual.OutputFolder {
    put(file: { path: string; content: string }): void {
      if (file.path === mockKillBefore) {
        mockKillBefore = undefined;
        throw new Error(`killed before writing ${file.path}`);
      }
      super.put(file);
    }
  }
  return { ...actual, OutputFolder: KilledFolder };
});


const A = "{ name: 'a-consumer', topic: { name: 'a.events', partitions: 6 }, principal: 'User:a', ladder: ['1m', '10m'] }";
const X = (extra = '') => consumerSource('x', extra);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  project.write('topologies/a.ts', topology('a', [A]));
  project.write('topologies/c.ts', topology('c', [X(', decommissioned: true')]));
});
afterEach(() => project.remove());

/** `krt synth`, killed just before it writes the snapshot: everything put before it is on disk, nothing after. */
async function killedSynth(): Promise<void> {
  mockKillBefore = '.krt-model.json';
  await expect(project.krt('synth')).rejects.toThrow('killed before writing .krt-model.json');
}

/** The folder as a commit holds it: what `git checkout HEAD -- generated && git clean -fd -- generated` gives back. */
function snapshotOfFolder(): () => void {
  const saved = project.path('generated.committed');
  cpSync(project.path('generated'), saved, { recursive: true });
  return () => {
    rmSync(project.path('generated'), { recursive: true, force: true });
    cpSync(saved, project.path('generated'), { recursive: true });
  };
}

describe('a synth killed between the stacks and the snapshot', () => {
  beforeEach(async () => {
    expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  });

  it('control: without the kill, declaring the kept stack\'s topics again is refused until --applied', async () => {
    rmSync(project.path('topologies/c.ts'));
    expect(await project.krt('synth')).toMatchObject({ code: 0 });
    project.write('topologies/a.ts', topology('a', [A, X()]));
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain('may still hold them in its Terraform state');
  });

  it('leaves a folder that synth, synth --check and plan refuse, naming the restore, instead of judging against it', async () => {
    rmSync(project.path('topologies/c.ts'));
    await killedSynth();
    // The crash state: the kept stack is written empty, the snapshot still has topology c live.
    expect(project.read('generated/terraform/c/cdk.tf.json')).not.toContain('kafka_topic');
    expect(JSON.parse(project.read('generated/.krt-model.json')).topologies.map((t: { name: string }) => t.name)).toEqual(['a', 'c']);
    project.write('topologies/a.ts', topology('a', [A, X()]));
    // Before the fix: synth exit 0 (x's topics created again while stack c's state holds them), plan exit 0.
    for (const args of [['synth'], ['synth', '--check'], ['plan']]) {
      const run = await project.krt(...args);
      expect({ args, code: run.code }).toEqual({ args, code: 1 });
      expect(run.stderr).toContain('generated was left half-written by a krt synth that did not finish');
      expect(run.stderr).toContain('git checkout HEAD -- generated && git clean -fd -- generated');
    }
  });

  it('judges the same edits as without the kill once the folder is restored as committed', async () => {
    const restore = snapshotOfFolder();
    rmSync(project.path('topologies/c.ts'));
    await killedSynth();
    restore();
    const plan = await project.krt('plan');
    expect(plan.code).toBe(3);
    expect(plan.stdout).toContain("consumer removed: deletes 'x.events.retry.1m'");
    expect(await project.krt('synth')).toMatchObject({ code: 0 });
    project.write('topologies/a.ts', topology('a', [A, X()]));
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain('may still hold them in its Terraform state');
  });

  it('takes the marker down when a synth finishes, and a synth that writes nothing puts none up', async () => {
    expect(existsSync(project.path('generated/.krt-writing'))).toBe(false);
    expect(await project.krt('synth')).toMatchObject({ code: 0 });
    expect(existsSync(project.path('generated/.krt-writing'))).toBe(false);
  });
});
