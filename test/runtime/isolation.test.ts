import { readFileSync } from 'node:fs';
import path from 'node:path';
import { reachableFrom } from '../helpers/imports';
import { REPO_ROOT } from '../helpers/project';

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'packages', 'runtime', 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const external = (packages: string[]) => packages.filter((p) => !p.startsWith('node:'));

describe('@kafka-retry-topology/runtime', () => {
  const runtime = reachableFrom(path.join(REPO_ROOT, 'src', 'runtime', 'index.ts'));
  const nestjs = reachableFrom(path.join(REPO_ROOT, 'src', 'nestjs', 'index.ts'));

  it('imports no generator code', () => {
    const outside = runtime.files.filter((f) => !f.startsWith('src/runtime/'));
    expect(outside).toEqual(['src/duration.ts', 'src/naming/headers.ts', 'src/naming/metrics.ts', 'src/naming/tracing.ts']);
  });

  it('depends on prom-client and the OpenTelemetry API alone, besides Node built-ins: no Terraform, template or spec tooling, no tracing SDK', () => {
    expect(external(runtime.packages)).toEqual(['@opentelemetry/api', 'prom-client']);
  });

  it('its NestJS entry point reaches only the runtime, Nest itself and the three naming modules', () => {
    expect(nestjs.files.filter((f) => !/^src\/(runtime|nestjs)\//.test(f))).toEqual(['src/duration.ts', 'src/naming/headers.ts', 'src/naming/metrics.ts', 'src/naming/tracing.ts']);
    expect(external(nestjs.packages).filter((p) => !external(runtime.packages).includes(p))).toEqual(['@nestjs/common', '@nestjs/core']);
  });

  it('its package declares exactly what it imports: the two libraries as dependencies, Nest as optional peers', () => {
    expect(Object.keys(manifest.dependencies).sort()).toEqual(external(runtime.packages));
    for (const nest of ['@nestjs/common', '@nestjs/core']) expect(manifest.peerDependenciesMeta[nest]).toEqual({ optional: true });
  });

  it('is released in lockstep with the generator: one version, which the generator depends on and its router packages ask for', () => {
    const generator = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };
    const runtime = JSON.parse(readFileSync(path.join(REPO_ROOT, 'packages', 'runtime', 'package.json'), 'utf8')) as { name: string; version: string };
    expect({ version: runtime.version, dependedOn: generator.dependencies[runtime.name] }).toEqual({ version: generator.version, dependedOn: generator.version });
  });

  it('leaves every Kafka client to the service, as an optional peer: a service installs the one it runs', () => {
    for (const client of ['kafkajs', '@confluentinc/kafka-javascript', '@platformatic/kafka']) {
      expect({ client, peer: manifest.peerDependencies[client] !== undefined, optional: manifest.peerDependenciesMeta[client]?.optional }).toEqual({ client, peer: true, optional: true });
    }
  });
});
