import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileTopologies } from '../src/compile';
import { installedDecoderPackages } from '../src/load/decoder-packages';
import { aConsumer, aTopology, problems } from './helpers/specs';

/*
 * Which `exports` of a decode function's package krt validate refuses, as Node's `require`
 * would resolve them (src/validate/consumer-rules.ts, requireRefusal, with resolve.exports):
 * condition objects, subpath patterns ("./*"), arrays of fallbacks and null targets, the
 * manifests read as the loader reads them beside a topology file. The
 * end-to-end case (the router really failing at start-up) is router-esm-only-decoder.test.ts.
 */

const work = mkdtempSync(path.join(os.tmpdir(), 'krt-decoder-exports-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function decodeShipped(value: Buffer | null) {
  return { orderId: String(value) };
}

let projects = 0;
/** The problems of a spec whose consumer decodes with `from`, in a project where @acme/events is installed with these exports. */
function problemsWith(exportsField: unknown, from = '@acme/events'): string[] {
  const project = path.join(work, `project-${projects++}`);
  mkdirSync(path.join(project, 'node_modules', '@acme', 'events'), { recursive: true });
  mkdirSync(path.join(project, 'topologies'));
  writeFileSync(path.join(project, 'node_modules', '@acme', 'events', 'package.json'), JSON.stringify({ name: '@acme/events', version: '1.0.0', type: 'module', exports: exportsField }));
  const exported = aTopology({
    consumers: [aConsumer({ name: 'shipping-order-shipped', topic: { name: 'orders.shipped', partitions: 3 }, principal: 'User:shipping', value: { decode: decodeShipped, from } })],
  });
  const file = path.join(project, 'topologies', 'orders.ts');
  // What the loader reads beside a topology file as it loads it.
  return problems(compileTopologies([{ file, exported, packages: installedDecoderPackages(exported, file) }]));
}

const refused = (specifier: string) => [expect.stringContaining(`consumers[0].value: '${specifier}' cannot be loaded with require`)];

describe('the main entry', () => {
  it.each([
    ['an import condition only', { '.': { types: './index.d.ts', import: './index.js' } }],
    ['conditions at the top, import only', { import: './index.js' }],
    ['a require condition of null', { '.': { require: null, default: './index.cjs' } }],
    ['an array of import-only entries', { '.': [{ import: './index.js' }, null] }],
  ])('is refused with %s', (_what, exportsField) => {
    expect(problemsWith(exportsField)).toEqual(refused('@acme/events'));
  });

  it.each([
    ['a require condition', { '.': { import: './index.js', require: './index.cjs' } }],
    ['a default condition', { '.': { import: './index.js', default: './index.cjs' } }],
    ['a node condition', { '.': { node: './index.cjs' } }],
    ['a plain string', './index.cjs'],
    ['an array whose later entry require finds', { '.': [{ import: './index.js' }, './index.cjs'] }],
    ['no exports at all (main applies)', undefined],
  ])('is accepted with %s', (_what, exportsField) => {
    expect(problemsWith(exportsField)).toEqual([]);
  });
});

describe('a subpath', () => {
  it('matched by a subpath pattern that gives require nothing is refused', () => {
    expect(problemsWith({ '.': './index.cjs', './codecs/*': { import: './codecs/*.js' } }, '@acme/events/codecs/orders')).toEqual(refused('@acme/events/codecs/orders'));
  });

  it('matched by a subpath pattern with a require condition is accepted', () => {
    expect(problemsWith({ '.': { import: './index.js' }, './codecs/*': { import: './codecs/*.js', require: './codecs/*.cjs' } }, '@acme/events/codecs/orders')).toEqual([]);
  });

  it('matched by the longer of two patterns is judged by that one', () => {
    const exportsField = { './*': './*.cjs', './codecs/*': { import: './codecs/*.js' } };
    expect(problemsWith(exportsField, '@acme/events/codecs/orders')).toEqual(refused('@acme/events/codecs/orders'));
    expect(problemsWith(exportsField, '@acme/events/orders')).toEqual([]);
  });

  it('named exactly beside a pattern is judged by its own entry', () => {
    expect(problemsWith({ './codecs/*': { import: './codecs/*.js' }, './codecs/orders': ['./codecs/orders.cjs'] }, '@acme/events/codecs/orders')).toEqual([]);
  });

  it('that the exports do not name at all is not judged here', () => {
    expect(problemsWith({ '.': { import: './index.js' } }, '@acme/events/other')).toEqual([]);
  });
});

it('a package installed in no folder above the topology file is not judged, nor is a compile given no packages', () => {
  const exported = aTopology({
    consumers: [aConsumer({ name: 'shipping-order-shipped', topic: { name: 'orders.shipped', partitions: 3 }, principal: 'User:shipping', value: { decode: decodeShipped, from: '@acme/nowhere' } })],
  });
  const file = path.join(work, 'no-packages', 'topologies', 'orders.ts');
  expect(installedDecoderPackages(exported, file)).toEqual(new Map([['@acme/nowhere', null]]));
  expect(problems(compileTopologies([{ file, exported, packages: installedDecoderPackages(exported, file) }]))).toEqual([]);
});
