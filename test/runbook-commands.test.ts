import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, ScratchProject } from './helpers/project';

const runbooks = readdirSync(path.join(REPO_ROOT, 'generated', 'runbooks'))
  .filter((f) => f.endsWith('.md') && f !== 'README.md')
  .map((f) => readFileSync(path.join(REPO_ROOT, 'generated', 'runbooks', f), 'utf8'));

/** Every `krt ...` command line the runbooks print, in code blocks or inline code. */
const commands = [...new Set(runbooks.flatMap((page) => [...page.matchAll(/(?:^\s*|`)(krt [^`\n]+?)(?:`|\s+#|$)/gm)].map((m) => m[1]!.trim())))];

describe('the commands the runbooks print', () => {
  const project = new ScratchProject();
  afterAll(() => project.remove());

  it('select DLQ records by error name, as the help says (not by classification)', async () => {
    const help = await project.krt('dlq', 'replay', '--help');
    expect(help.stdout).toContain('--error-class <error-name>');
    expect(help.stdout).toContain('error name (x-error-class header');
    expect((await project.krt('lag', '--help')).stdout).toContain('the monitor principal');
  });

  it('are there to check', () => {
    expect(commands.filter((c) => c.startsWith('krt dlq ')).length).toBeGreaterThanOrEqual(5);
  });

  it.each(commands.map((c) => [c]))('%s: the CLI has that command and every flag', async (command) => {
    const words = command.split(/\s+/);
    const sub = words.slice(1, 3).filter((w) => !w.startsWith('-'));
    const help = await project.krt(...sub, '--help');
    expect(help.code).toBe(0);
    for (const flag of words.filter((w) => w.startsWith('--'))) expect(help.stdout).toContain(flag);
  });
});
