import path from 'node:path';
import { reachableFrom } from '../helpers/imports';
import { REPO_ROOT } from '../helpers/project';

describe('kafka-retry-topology/runtime', () => {
  const { files, packages } = reachableFrom(path.join(REPO_ROOT, 'src', 'runtime', 'index.ts'));

  it('imports no generator code', () => {
    const outside = files.filter((f) => !f.startsWith('src/runtime/'));
    expect(outside).toEqual(['src/duration.ts', 'src/naming/headers.ts', 'src/naming/metrics.ts', 'src/naming/tracing.ts']);
  });

  it('depends on prom-client and the OpenTelemetry API alone, besides Node built-ins: no Terraform, template or spec tooling, no tracing SDK', () => {
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual(['@opentelemetry/api', 'prom-client']);
  });
});
