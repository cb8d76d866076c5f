import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { fileTree, ScratchProject } from './helpers/project';
import { consumerSource as consumer, topologyOf as topology } from './helpers/topology-source';

/*
 * A synth cut short between any two of its writes (SIGKILL, out of memory, a power loss)
 * must never leave a folder that the guards judge against: either the folder is exactly as
 * it was (nothing written yet), or it carries the writing marker and synth, synth --check
 * and plan refuse it. Attack 33 found one such point (between the stacks and the snapshot)
 * where the next synth forgot what a kept stack's state held; this walks every point.
 * A crash is a throw at the k-th file the writer is given: the writes are synchronous, so
 * the disk then holds what a kill there would leave.
 */
jest.setTimeout(300_000);

let mockCrashAt: number | undefined;
let mockPuts = 0;
jest.mock('../src/writer/write-generated', () => {
  const actual = jest.requireActual('../src/writer/write-generated');
  class CrashingFolder extends actual.OutputFolder {
    put(file: { path: string; content: string }): void {
      mockPuts++;
      if (mockPuts === mockCrashAt) throw new Error(`cut short before ${file.path}`);
      super.put(file);
    }
  }
  return { ...actual, OutputFolder: CrashingFolder };
});


let project: ScratchProject;
afterEach(() => project.remove());

it('leaves the folder as it was, or refused by synth, synth --check and plan, wherever a synth is cut short', async () => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  project.write('topologies/a.ts', topology('a', [consumer('a')]));
  project.write('topologies/b.ts', topology('b', [consumer('b')]));
  project.write('topologies/c.ts', topology('c', [consumer('x', ', decommissioned: true')]));
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  // The edit: a topology deleted (its stack kept, files removed) and another one changed (files rewritten).
  rmSync(project.path('topologies/c.ts'));
  project.write('topologies/b.ts', topology('b', [consumer('b'), consumer('y')]));
  const committed = project.path('generated.committed');
  cpSync(project.path('generated'), committed, { recursive: true });
  const before = fileTree(project.path('generated'));

  mockPuts = 0;
  expect(await project.krt('synth', '--no-cache')).toMatchObject({ code: 0 });
  const after = fileTree(project.path('generated'));
  const steps = mockPuts;
  expect(after).not.toEqual(before);

  const outcomes: string[] = [];
  for (let k = 1; k <= steps; k++) {
    rmSync(project.path('generated'), { recursive: true, force: true });
    cpSync(committed, project.path('generated'), { recursive: true });
    mockPuts = 0;
    mockCrashAt = k;
    await expect(project.krt('synth', '--no-cache')).rejects.toThrow('cut short before');
    mockCrashAt = undefined;
    if (!existsSync(project.path('generated/.krt-writing'))) {
      expect({ k, unchanged: fileTree(project.path('generated')) }).toEqual({ k, unchanged: before });
      outcomes.push('as it was');
      continue;
    }
    for (const args of [['synth'], ['synth', '--check'], ['plan']]) {
      const run = await project.krt(...args);
      expect({ k, args, code: run.code, refused: run.stderr.includes('was left half-written by a krt synth that did not finish') }).toEqual({ k, args, code: 1, refused: true });
    }
    outcomes.push('refused');
  }
  // Both kinds of point were met: before the first write, and after it.
  expect(new Set(outcomes)).toEqual(new Set(['as it was', 'refused']));

  // A synth that finishes leaves the edit's output and no marker.
  rmSync(project.path('generated'), { recursive: true, force: true });
  cpSync(committed, project.path('generated'), { recursive: true });
  expect(await project.krt('synth')).toMatchObject({ code: 0 });
  expect(fileTree(project.path('generated'))).toEqual(after);
});
