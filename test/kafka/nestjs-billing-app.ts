/**
 * Runs examples/nestjs-billing as a real process (Nest 12 is ESM-only, which jest's module
 * system cannot load on Node 20): the package imports resolve to this repository's
 * sources, and `orders-retry-router` to the package the test wrote (NESTJS_ROUTER_PACKAGE:
 * the same exports, on the test's own topics with short delays).
 */
import path from 'node:path';
import { createJiti } from 'jiti';

const repo = path.resolve(__dirname, '..', '..');
const routerPackage = process.env.NESTJS_ROUTER_PACKAGE;
if (!routerPackage) throw new Error('set NESTJS_ROUTER_PACKAGE to the router package the test wrote');

const jiti = createJiti(__filename, {
  alias: {
    '@kafka-retry-topology/runtime': path.join(repo, 'src', 'runtime', 'index.ts'),
    '@kafka-retry-topology/runtime/nestjs': path.join(repo, 'src', 'nestjs', 'index.ts'),
    'orders-retry-router': routerPackage,
  },
});
void jiti.import(path.join(repo, 'examples', 'nestjs-billing', 'src', 'main.ts'));
