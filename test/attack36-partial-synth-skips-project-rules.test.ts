import { existsSync, mkdirSync } from 'node:fs';
import { ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * Attack 36 (class: `krt synth <file>` writes output for a project that `krt synth` rejects).
 *
 * Scenario: topologies/a.ts has consumers p and q; b.ts has r; synth. Then b.ts gains a consumer
 * that clashes with a.ts across files (docs: "`krt synth topologies/a.ts` (some files) judges only
 * the named files: the other topologies stay as generated/.krt-model.json has them"):
 *  1. a consumer also named 'q' (other topics): `krt synth topologies/b.ts`
 *  2. a consumer 'q2' reading q's main topic 'q.events' with 12 partitions where a.ts says 6:
 *     `krt synth topologies/b.ts`
 *
 * Seen: 1. the partial synth crashes with "krt: two emitters produced runbooks/q.md (a defect of
 * kafka-retry-topology: please report it ...)" after it began writing, and leaves generated/
 * half-written (.krt-writing stands): every later krt synth / plan / cdktf refuses until the
 * folder is restored from git. 2. the partial synth exits 0 and writes a generated/ whose two
 * stacks disagree on the main topic's partitions (b's tiers and DLQ sized for 12, R4), which a
 * full `krt synth` refuses ("'q.events' has 12 partitions here but 6 for consumer 'q'");
 * `krt synth --check` then fails with a compile error, not "out of date". A full synth rejects
 * both with the project rules (duplicate consumer name, main topic disagreement).
 *
 * At fault: src/synth/synthesize.ts (and plan-command.ts, cdktf-command.ts) merge the committed
 * topologies into the compiled ones with withUntouched (src/plan/partial.ts) but never run the
 * rules across files (src/validate/project-rules.ts checkProject, checkMoves) on the merged
 * model: compileFiles only saw the named files. cached-emit.ts detects the clash only while
 * writing, after the first file reached the folder.
 *
 * Fixed (session 44): the rules across files run on the merged model (plan/partial.ts acrossFiles)
 * in synth, plan and cdktf; a previousName takes a topology over only when its file is gone.
 *
 * Suggested fix: after withUntouched, run checkProject/checkMoves on the merged model and return
 * `invalid` on errors (nothing written); and let emitModel find duplicate paths before the first
 * write, so a defect never leaves the folder half-written.
 */

jest.setTimeout(180_000);

let project: ScratchProject;
beforeEach(async () => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  project.write('topologies/a.ts', topology('a', [consumer('p'), consumer('q')]));
  project.write('topologies/b.ts', topology('b', [consumer('r')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
});
afterEach(() => project.remove());

it('a consumer name used in another file: the partial synth refuses it as the full one does, and leaves the folder whole', async () => {
  project.write('topologies/b.ts', topology('b', [consumer('r'), "{ name: 'q', topic: { name: 'z.events', partitions: 6 }, principal: 'User:z', ladder: ['1m'] }"]));
  const full = await project.krt('synth', '--check');
  expect(full.stderr).toContain("consumer 'q' is already defined at topologies/a.ts");
  const partial = await project.krt('synth', 'topologies/b.ts');
  // Seen: "krt: two emitters produced runbooks/q.md (a defect of kafka-retry-topology ...)", and .krt-writing left standing.
  expect({ code: partial.code, defect: partial.stderr.includes('a defect of kafka-retry-topology'), halfWritten: existsSync(project.path('generated/.krt-writing')) }).toEqual({ code: 1, defect: false, halfWritten: false });
  expect(partial.stderr).toContain("consumer 'q' is already defined at topologies/a.ts");
});

it('a main topic another file reads with other partitions: the partial synth refuses it as the full one does', async () => {
  project.write('topologies/b.ts', topology('b', [consumer('r'), "{ name: 'q2', topic: { name: 'q.events', partitions: 12 }, principal: 'User:z', ladder: ['1m'], retryTopicBase: 'q2.events' }"]));
  const full = await project.krt('synth');
  expect(full.code).toBe(1);
  expect(full.stderr).toContain("'q.events' has 12 partitions here but 6 for consumer 'q' (topologies/a.ts consumers[1])");
  const partial = await project.krt('synth', 'topologies/b.ts');
  // Seen: exit 0, "synthesized 1 topology, 2 consumers into generated/: 11 files written".
  expect(partial.code).toBe(1);
  expect(partial.stderr).toContain("'q.events' has 12 partitions here but 6 for consumer 'q'");
});

// Noticed by attack 36: a partial synth of a file whose previousName names a topology whose file is still there dropped that topology.
it('a previousName naming a topology whose file is still there: the partial synth and plan refuse it as the full ones do', async () => {
  project.write('topologies/c.ts', topology('c', [consumer('s')]).replace("name: 'c',", "name: 'c', previousName: 'a',"));
  const full = await project.krt('synth');
  expect(full.stderr).toContain("previousName 'a' names a topology that still exists");
  for (const command of ['synth', 'plan']) {
    const partial = await project.krt(command, 'topologies/c.ts');
    expect({ command, code: partial.code }).toEqual({ command, code: 1 });
    expect(partial.stderr).toContain("previousName 'a' names a topology that still exists");
  }
  expect(project.read('generated/.krt-model.json')).toContain('"name": "a"');
});
