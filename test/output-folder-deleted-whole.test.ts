import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { ScratchProject } from './helpers/project';

/**
 * Found by the audit of #27: with the whole output folder deleted (`rm -rf generated`), the
 * snapshot and krt's manifest were both gone, synth took it for a first synth, and every guard
 * was off: any spec edit, one that deletes topics holding records included, was accepted.
 * The last commit still holds the folder: that tells a deleted folder from one never made.
 */
describe('the output folder deleted whole in a git checkout that committed it', () => {
  let project: ScratchProject;
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', ...args], { cwd: project.dir, stdio: 'pipe' });

  beforeEach(() => {
    project = new ScratchProject();
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'topologies and their output');
    rmSync(project.path('generated'), { recursive: true });
  });
  afterEach(() => project.remove());

  it('refuses to synth a spec edit that would delete topics, says how to restore the folder, and writes nothing', async () => {
    rmSync(project.path('topologies/analytics.ts')); // its topics hold records
    const synth = await project.krt('synth');
    expect(synth.code).toBe(1);
    expect(synth.stderr).toContain('the last commit holds them: the output folder was deleted, not never made');
    expect(synth.stderr).toContain('git checkout HEAD -- ./generated');
    expect(existsSync(project.path('generated/.krt-model.json'))).toBe(false);
  });

  it('refuses to plan as if everything were new', async () => {
    const plan = await project.krt('plan');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('git checkout HEAD -- ./generated');
    expect(plan.stdout).not.toContain('everything below is new');
  });

  it('synthesizes again once the folder is restored the way the refusal says', async () => {
    git('checkout', 'HEAD', '--', './generated');
    const synth = await project.krt('synth');
    expect(synth.stderr).toBe('');
    expect(synth.code).toBe(0);
  });

  it('takes a deletion of the folder that was committed (a reviewed change) for a first synth', async () => {
    git('add', '-A');
    git('commit', '-qm', 'start the output over');
    const synth = await project.krt('synth');
    expect(synth.code).toBe(0);
    expect(existsSync(project.path('generated/.krt-model.json'))).toBe(true);
  });
});

describe('the output folder missing outside any git checkout', () => {
  it('is a first synth', async () => {
    const project = new ScratchProject();
    try {
      rmSync(project.path('generated'), { recursive: true });
      const synth = await project.krt('synth');
      expect(synth.code).toBe(0);
      expect(existsSync(project.path('generated/.krt-model.json'))).toBe(true);
    } finally {
      project.remove();
    }
  });
});
