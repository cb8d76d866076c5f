import { readdirSync } from 'node:fs';
import { ScratchProject } from './helpers/project';

/*
 * Output generated before krt set compression.type=producer on the topics it creates: the
 * next plan must call adding it a safe config change of each existing topic (the provider
 * updates `config` in place; it is no replacement), and synth must write it without a
 * refusal. The older output is made by taking the key out of the committed stacks and of
 * the model snapshot, which is what an older krt wrote.
 */

jest.setTimeout(60_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject();
});
afterEach(() => project.remove());

/** Removes compression.type=producer from every committed stack and from the model snapshot. */
function asBeforeCompressionType(): number {
  let removed = 0;
  const files = [...readdirSync(project.path('generated/terraform')).map((stack) => `generated/terraform/${stack}/cdk.tf.json`), 'generated/.krt-model.json'];
  for (const file of files) {
    const text = project.read(file);
    const stripped = text.replace(/,\n\s*"compression\.type": "producer"(?=\n)/g, '').replace(/\n\s*"compression\.type": "producer",(?=\n)/g, '');
    removed += (text.match(/"compression\.type"/g) ?? []).length - (stripped.match(/"compression\.type"/g) ?? []).length;
    project.write(file, stripped);
  }
  return removed;
}

it('krt plan calls adding compression.type=producer to the existing topics a safe in-place config change, and krt synth writes it', async () => {
  expect(asBeforeCompressionType()).toBeGreaterThan(0);
  expect(project.read('generated/.krt-model.json')).not.toContain('compression.type');

  const plan = await project.krt('plan');
  expect(plan).toMatchObject({ code: 0, stderr: '' });
  const changes = plan.stdout.split('\n').filter((line) => /^\s+(safe|needs-migration|destructive)\s/.test(line));
  expect(changes.length).toBeGreaterThan(0);
  for (const line of changes) expect(line).toMatch(/^\s+safe\s+'[^']+' config compression\.type: \(default\) -> producer$/);
  expect(plan.stdout).not.toMatch(/replace|recreate|destroy|delete/i);
  expect(plan.stdout).toContain(`${changes.length} safe, 0 needs-migration, 0 destructive`);

  const synth = await project.krt('synth');
  expect(synth).toMatchObject({ code: 0, stderr: '' });
  expect(await project.krt('synth', '--check')).toMatchObject({ code: 0 });
  expect(project.read('generated/.krt-model.json')).toContain('"compression.type": "producer"');
});
