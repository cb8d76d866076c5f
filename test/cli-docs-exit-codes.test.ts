import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, ScratchProject } from './helpers/project';

/*
 * docs/cli.md's table and each command's --help say the same exit codes. (krt synth and
 * krt plan are left to their own suites.)
 */
const COMMANDS = ['validate', 'simulate', 'cdktf', 'lag', 'monitor', 'console', 'dlq inspect', 'dlq replay', 'dlq discard'];

const normalized = (text: string) => text.replace(/usage error/g, 'usage').replace(/\s+/g, ' ').trim().toLowerCase();

/** The exit-code cell of the table row of `krt <command>`. */
function documentedExitCodes(command: string): string | undefined {
  const table = readFileSync(path.join(REPO_ROOT, 'docs', 'cli.md'), 'utf8');
  const row = table.split('\n').find((line) => line.startsWith(`| \`krt ${command}`) && !line.includes('--live'));
  const cells = row?.split(/(?<!\\)\|/).map((cell) => cell.trim()).filter(Boolean);
  return cells?.at(-1);
}

describe('the exit codes of docs/cli.md', () => {
  const project = new ScratchProject(false);
  afterAll(() => project.remove());

  it.each(COMMANDS)('are those krt %s --help gives', async (command) => {
    const help = (await project.krt(...command.split(' '), '--help')).stdout;
    const helped = /exit codes: ([^\n]+?)\.\s*$/im.exec(help)?.[1];
    expect(helped).toBeDefined();
    expect(normalized(documentedExitCodes(command) ?? '(no row)')).toBe(normalized(helped!));
  });

  it.each(['console', 'monitor'])('of krt %s say that one not stopped within 10 s of the signal ends with 1', async (command) => {
    expect((await project.krt(command, '--help')).stdout).toMatch(/1 spec errors[^.]*not stopped within 10 s/);
  });
});
