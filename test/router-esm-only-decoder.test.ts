import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emitRouter } from '../src/emitters/router';
import { aConsumer, aTopology, compile, problems } from './helpers/specs';
import { REPO_ROOT } from './helpers/project';

/*
 * A decode function from a package that is an ES module only, with the `exports` many such
 * packages have: `{ ".": { "types": ..., "import": ... } }`, no `require` or `default`
 * condition. The topology repository's spec imports it (krt loads specs through jiti, which
 * resolves it), so krt validate and krt synth accept it, and the service type-checks. The
 * generated router package is CommonJS and `require`s the package when the consumer is
 * created; Node's `require` resolves `exports` with the require conditions, finds none, and
 * the service stops at start-up with "@acme/esm-events could not be loaded (No "exports"
 * main defined ...); install it beside this package", though it is installed.
 *
 * Seen: in a scratch topology repository and service installed from the npm pack tarballs
 * (Node 20.20, 22.23 and 24.22): krt validate ok, tsc ok, the service exits on
 * createRetryingConsumer. Code at fault: the router package's loader of a decode function
 * (src/emitters/router/index.ts, decoderFrom: `require(from)`) and krt validate, which accepts a
 * `from` that require cannot load. Class: a dependency loaded in one module system at
 * build time and in the other at run time. Fix I would make: in krt validate, resolve
 * `from` with createRequire(the spec's file) and refuse a package require cannot resolve,
 * saying its exports need a `default` (or `require`) condition, which Node 20.19+ and 22.12+
 * then load with require(esm); or have decoderFrom fall back to the `import` target of the
 * package's exports, required by its file path.
 */

jest.setTimeout(120_000);

function decodeShipped(value: Buffer | null) {
  return { orderId: String(value) };
}

const work = mkdtempSync(path.join(os.tmpdir(), 'krt-esm-decoder-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A service folder: the runtime built fresh, the router package, and the ES-module-only package of the decode function. */
function service(): string {
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
  return path.join(work, 'service');
}

it.failing('a decode function from an ES-module-only package is refused by krt validate, or loaded by the router package when its consumer is created', () => {
  const result = compile(
    aTopology({
      consumers: [
        aConsumer({ name: 'shipping-order-shipped', topic: { name: 'orders.shipped', partitions: 3 }, principal: 'User:shipping', value: { decode: decodeShipped, from: '@acme/esm-events' } }),
      ],
    }),
  );
  const refused = problems(result);
  if (refused.length > 0) {
    expect(refused).toEqual([expect.stringContaining('@acme/esm-events')]);
    return;
  }
  const folder = service();
  for (const file of emitRouter(result.model!)) {
    const target = path.join(folder, 'node_modules', 'routers', file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
  const router = path.join(folder, 'node_modules', 'routers', 'router', 'orders', 'index.js');
  const created = execFileSync(
    process.execPath,
    ['-e', `const r = require(${JSON.stringify(router)}); r.createRetryingConsumer('shipping-order-shipped', { kafka: {}, handler: async () => {} }); console.log('created');`],
    // The runtime's own dependencies (prom-client, @opentelemetry/api) from this repository's node_modules.
    { cwd: folder, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_PATH: path.join(REPO_ROOT, 'node_modules') } },
  );
  expect(created).toBe('created\n');
});
