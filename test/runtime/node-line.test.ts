import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../helpers/project';

// npm's own reading of a version range, as it reads `engines`.
const semver: { satisfies(version: string, range: string): boolean } = require('semver');
const engines: string = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).engines.node;

describe('the Node the runtime suites run on', () => {
  it('is one package.json supports, and under npm test the line the matrix meant (scripts/tools/node-matrix.sh)', () => {
    expect({ node: process.version, supported: semver.satisfies(process.version, engines) }).toEqual({ node: process.version, supported: true });
    const line = process.env.KRT_NODE_LINE;
    if (line) expect(process.version).toMatch(new RegExp(`^v${line}\\.`));
  });
});
