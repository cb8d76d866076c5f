import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, ScratchProject } from './helpers/project';

/*
 * docs/topology-repository.md, followed as written: its first topology validates and
 * synthesizes in an empty project, and what it says to ignore and to put in cdktf.json
 * is what this repository ignores and runs.
 */

jest.setTimeout(60_000);

const page = readFileSync(path.join(REPO_ROOT, 'docs/topology-repository.md'), 'utf8');
/** The fenced blocks of the page in a language, in order. */
const blocks = (language: string) => [...page.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
});
afterEach(() => project.remove());

it('its first topology validates, synthesizes into generated/, and is then up to date', async () => {
  const [topology] = blocks('ts');
  project.write('topologies/orders.ts', topology!);
  expect(await project.krt('validate')).toMatchObject({ code: 0, stderr: '' });
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  for (const file of ['terraform/orders/cdk.tf.json', 'runbooks/billing-order-confirmed.md', 'prometheus/orders.rules.yml', '.krt-model.json']) {
    expect(existsSync(project.path(`generated/${file}`))).toBe(true);
  }
  expect(await project.krt('synth', '--check')).toMatchObject({ code: 0 });
  expect(existsSync(project.path('cdktf.out'))).toBe(false);
});

it('asks to ignore what this repository ignores of cdktf and Terraform', () => {
  const ignored = readFileSync(path.join(REPO_ROOT, '.gitignore'), 'utf8').split('\n');
  const asked = blocks('text')[1]!.trim().split('\n');
  expect(asked).toEqual(['cdktf.out/', '.terraform/', '*.tfstate', '*.tfstate.backup']);
  expect(ignored).toEqual(expect.arrayContaining(asked));
});

it('gives cdktf.json the app and the provider this repository runs', () => {
  const own = JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdktf.json'), 'utf8')) as Record<string, unknown>;
  const documented = JSON.parse(blocks('json')[1]!) as Record<string, unknown>;
  expect(documented).toEqual({ language: own.language, app: own.app, terraformProviders: own.terraformProviders });
});
