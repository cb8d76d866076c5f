import path from 'node:path';
import { reachableFrom } from '../helpers/imports';
import { REPO_ROOT } from '../helpers/project';

describe('kafka-retry-topology/runtime', () => {
  const { files, packages } = reachableFrom(path.join(REPO_ROOT, 'src', 'runtime', 'index.ts'));

  it('imports no generator code', () => {
    const outside = files.filter((f) => !f.startsWith('src/runtime/'));
    expect(outside).toEqual(['src/duration.ts', 'src/naming/headers.ts', 'src/naming/metrics.ts']);
  });

  it('depends on prom-client alone, besides Node built-ins: no Terraform, template or spec tooling', () => {
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual(['prom-client']);
  });
});
