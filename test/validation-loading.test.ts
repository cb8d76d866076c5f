import { mkdirSync } from 'node:fs';
import { ScratchProject } from './helpers/project';

const SPEC = `import { defineTopology } from 'kafka-retry-topology';

export default defineTopology({
  name: 'orders',,
});
`;

describe('a topology file that does not load', () => {
  const project = new ScratchProject(false);
  beforeAll(() => mkdirSync(project.path('topologies')));
  afterAll(() => project.remove());

  it('is reported with the line and column of a syntax error, and nothing else', async () => {
    project.write('topologies/orders.ts', SPEC);
    const result = await project.krt('validate');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error topologies/orders.ts: the file could not be loaded: ParseError: Unexpected token at line 4, column 17; fix the TypeScript so that it runs\n1 error: nothing was written\n',
    );
  });

  it('is reported with the line of a run-time error in the spec', async () => {
    project.write('topologies/orders.ts', SPEC.replace("name: 'orders',,", 'name: (notDeclared as string),'));
    const result = await project.krt('validate');
    expect(result.stderr).toContain('the file could not be loaded: ReferenceError: notDeclared is not defined at line 4, column 9;');
    expect(result.stderr).not.toContain('no topology files found');
  });

  it('that exports defineTopology itself is told to call it', async () => {
    project.write('topologies/orders.ts', "import { defineTopology } from 'kafka-retry-topology';\nexport default defineTopology;\n");
    const result = await project.krt('validate');
    expect(result.stderr).toBe(
      'error topologies/orders.ts: the default export is a function, not a topology; call it: `export default defineTopology({ ... })`\n1 error: nothing was written\n',
    );
  });
});
