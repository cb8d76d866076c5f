import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emitRouter } from '../src/emitters/router';
import { compileTopologies } from '../src/compile';
import { installedDecoderPackages } from '../src/load/decoder-packages';
import { aConsumer, aTopology, compile, problems } from './helpers/specs';
import { REPO_ROOT } from './helpers/project';

/*
 * A decode function from a package that is an ES module only, with the `exports` many such
 * packages have: `{ ".": { "types": ..., "import": ... } }`, no `require` or `default`
 * condition. The topology repository's spec imports it (krt loads specs through jiti, which
 * resolves it), and the service type-checks. The generated router package is CommonJS and
 * `require`s the package when the consumer is created; Node's `require` resolves `exports`
 * with the require conditions, finds none, and the service stopped at start-up with
 * "@acme/esm-events could not be loaded (No "exports" main defined ...); install it beside
 * this package", though it is installed. Seen in a scratch topology repository and service
 * installed from the npm pack tarballs (Node 20.20, 22.23 and 24.22), after krt validate and
 * krt synth had accepted the spec.
 *
 * krt validate now resolves `from` as require would, from the spec's file, and refuses a
 * package require cannot load (src/validate/consumer-rules.ts, requireRefusal, on the manifest
 * the loader read beside the file: src/load/decoder-packages.ts). A package not
 * installed beside the spec is not judged (the unit tests' '@acme/order-events' is nowhere).
 */

jest.setTimeout(120_000);

function decodeShipped(value: Buffer | null) {
  return { orderId: String(value) };
}

const work = mkdtempSync(path.join(os.tmpdir(), 'krt-esm-decoder-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A service folder (built once): the runtime built fresh, and the ES-module-only package of the decode function. */
let built: string | undefined;
function service(): string {
  if (built !== undefined) return built;
  const modules = path.join(work, 'service', 'node_modules');
  const runtime = path.join(modules, '@kafka-retry-topology', 'runtime');
  mkdirSync(runtime, { recursive: true });
  copyFileSync(path.join(REPO_ROOT, 'packages', 'runtime', 'package.json'), path.join(runtime, 'package.json'));
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'packages/runtime/tsconfig.json', '--outDir', path.join(runtime, 'dist')], { cwd: REPO_ROOT, stdio: 'pipe' });
  const events = path.join(modules, '@acme', 'esm-events');
  mkdirSync(events, { recursive: true });
  writeFileSync(
    path.join(events, 'package.json'),
    JSON.stringify({ name: '@acme/esm-events', version: '1.0.0', type: 'module', exports: { '.': { types: './index.d.ts', import: './index.js' } } }),
  );
  writeFileSync(path.join(events, 'index.js'), 'export function decodeShipped(value) { return { orderId: String(value) }; }\n');
  writeFileSync(path.join(events, 'index.d.ts'), 'export declare function decodeShipped(value: Buffer | null): { orderId: string };\n');
  built = path.join(work, 'service');
  return built;
}

it('a decode function from an ES-module-only package installed beside the spec is refused by krt validate, saying why and what to do', () => {
  const folder = service();
  const file = path.join(folder, 'topologies', 'orders.ts');
  const exported = aTopology({
    consumers: [
      aConsumer({ name: 'shipping-order-shipped', topic: { name: 'orders.shipped', partitions: 3 }, principal: 'User:shipping', value: { decode: decodeShipped, from: '@acme/esm-events' } }),
    ],
  });
  // The loader reads the decode package's manifest beside the file as it loads it (src/load/decoder-packages.ts).
  const result = compileTopologies([{ file, exported, packages: installedDecoderPackages(exported, file) }]);
  expect(problems(result)).toEqual([
    expect.stringMatching(/consumers\[0\]\.value: '@acme\/esm-events' cannot be loaded with require \(its exports have no "require" or "default" condition\).*give its exports a "default" condition/),
  ]);
});

it('the router package would indeed stop the service: require finds no entry in such a package', () => {
  const folder = service();
  const result = compile(
    aTopology({
      consumers: [
        aConsumer({ name: 'shipping-order-shipped', topic: { name: 'orders.shipped', partitions: 3 }, principal: 'User:shipping', value: { decode: decodeShipped, from: '@acme/esm-events' } }),
      ],
    }),
  );
  // Compiled from this repository, where the package is not installed: nothing to judge, so accepted.
  expect(problems(result)).toEqual([]);
  for (const file of emitRouter(result.model!)) {
    const target = path.join(folder, 'node_modules', 'routers', file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
  const router = path.join(folder, 'node_modules', 'routers', 'router', 'orders', 'index.js');
  expect(() =>
    execFileSync(
      process.execPath,
      ['-e', `const r = require(${JSON.stringify(router)}); r.createRetryingConsumer('shipping-order-shipped', { kafka: {}, handler: async () => {} });`],
      // The runtime's own dependencies (prom-client, @opentelemetry/api) from this repository's node_modules.
      { cwd: folder, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_PATH: path.join(REPO_ROOT, 'node_modules') } },
    ),
  ).toThrow(/@acme\/esm-events could not be loaded \(No "exports" main defined/);
});
