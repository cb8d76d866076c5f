/**
 * A mistyped `--out` that names a file (or a folder under one) is an error a user causes: one
 * sentence naming the file, not `krt: internal error` with the stack of an ENOTDIR from the
 * writer or the synth cache (exit 70), as it was (review of #24).
 */
import { ScratchProject } from './helpers/project';

jest.setTimeout(60_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject();
  project.write('not-a-folder', 'a file\n');
});
afterEach(() => project.remove());

/** The command's outcome as a user sees it: its exit code and what it printed, or the crash that escaped. */
async function krt(...args: string[]): Promise<{ code: number | 'crash'; stderr: string }> {
  try {
    const { code, stderr } = await project.krt(...args);
    return { code, stderr };
  } catch (error) {
    return { code: 'crash', stderr: String(error) };
  }
}

describe('krt with an --out that is a file', () => {
  it.each([['synth --out not-a-folder'], ['synth --out not-a-folder/generated'], ['synth --check --out not-a-folder'], ['plan --out not-a-folder']])('krt %s ends with one line naming the folder, not an internal error', async (command) => {
    const args = command.split(' ');
    const { code, stderr } = await krt(...args);
    expect({ code, stderr }).toEqual({ code: expect.any(Number), stderr: expect.stringMatching(/^krt: [^\n]*not-a-folder[^\n]*\n$/) });
    expect(code).not.toBe(0);
  });
});
