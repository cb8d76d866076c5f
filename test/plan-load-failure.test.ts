import { ScratchProject } from './helpers/project';

jest.setTimeout(60_000);

/** Attack on the plan guard with a topology file that fails to load: nothing is written and nothing reads as deleted (held). */
describe('a topology file that fails to load', () => {
  let project: ScratchProject;
  beforeEach(() => (project = new ScratchProject()));
  afterEach(() => project.remove());

  it.each([
    ['throws while it loads', "throw new Error('REGION is not set');\n"],
    ['has a syntax error', 'export default defineTopology({ name: \n'],
    ['exports nothing', 'export const x = 1;\n'],
  ])('held: krt plan and krt synth refuse when analytics.ts %s, and generated/ keeps its stack', async (_what, text) => {
    const stack = project.read('generated/terraform/analytics/cdk.tf.json');
    project.write('topologies/analytics.ts', text);
    const plan = await project.krt('plan');
    const synth = await project.krt('synth');
    expect({ plan: plan.code !== 0, synth: synth.code !== 0 }).toEqual({ plan: true, synth: true });
    expect(project.read('generated/terraform/analytics/cdk.tf.json')).toBe(stack);
  });
});
