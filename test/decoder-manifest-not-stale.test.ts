import { mkdirSync } from 'node:fs';
import { ScratchProject } from './helpers/project';

/*
 * Whether a decode function's package can be loaded with `require` is judged from its
 * package.json as installed beside the spec: src/load/decoder-packages.ts reads it while the
 * topology file loads, src/validate/consumer-rules.ts judges what was read. The synth cache
 * keeps what the emitters made of a model; a refusal must follow the package as it is
 * installed now, not as it was when the cache was filled: installing another version of the
 * decoder package between two synths, the spec unchanged, changes the verdict both ways.
 *
 * The synth cache never held this verdict (every file is loaded and validated on every run,
 * and a refused spec reaches no emitter), so the manifest is not part of its key: what is
 * generated does not depend on it. What these tests found was elsewhere: the rule read
 * node_modules from the spec's path taken relative to the process's working directory, not
 * the project's, so `krt synth` run in-process for another folder (as these tests and the
 * library call do) judged the wrong node_modules, or none, and let the import-only package
 * through. The loader reads from the file's absolute path.
 */

jest.setTimeout(60_000);

let project: ScratchProject;
beforeEach(() => {
  project = new ScratchProject(false);
  mkdirSync(project.path('topologies'));
  mkdirSync(project.path('node_modules/@acme/events'), { recursive: true });
  project.write(
    'topologies/orders.ts',
    [
      "import { defineTopology } from 'kafka-retry-topology';",
      'function decodeShipped(value: Buffer | null) { return { orderId: String(value) }; }',
      'export default defineTopology({',
      "  name: 'orders', owner: { team: 'orders', onCall: '#orders' }, runbookBaseUrl: 'https://runbooks.example.com/kafka',",
      "  consumers: [{ name: 'shipping-order-shipped', topic: { name: 'orders.shipped', partitions: 3 }, principal: 'User:shipping', ladder: ['1m'], value: { decode: decodeShipped, from: '@acme/events' } }],",
      '});',
      '',
    ].join('\n'),
  );
});
afterEach(() => project.remove());

/** Installs a version of the decoder package whose exports are these. */
const install = (version: string, exports: unknown) =>
  project.write('node_modules/@acme/events/package.json', JSON.stringify({ name: '@acme/events', version, type: 'module', exports }));

const REFUSAL = "'@acme/events' cannot be loaded with require";

it('a decoder package reinstalled as import-only is refused by the next synth, though the spec and the cached model did not change', async () => {
  install('1.0.0', { '.': { import: './index.js', require: './index.cjs' } });
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  expect(await project.krt('synth')).toMatchObject({ code: 0, stdout: expect.stringContaining('reused from the cache') });

  install('2.0.0', { '.': { import: './index.js' } });
  const refused = await project.krt('synth');
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain(REFUSAL);
});

it('and the reverse: a refused decoder package reinstalled with a require entry is accepted by the next synth', async () => {
  install('2.0.0', { './*': { import: './*.js' } , '.': { import: './index.js' } });
  const refused = await project.krt('synth');
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain(REFUSAL);

  install('2.0.1', { '.': { import: './index.js', default: './index.cjs' } });
  expect(await project.krt('synth')).toMatchObject({ code: 0, stderr: '' });
  install('2.0.2', { '.': { import: './index.js' } });
  expect((await project.krt('synth')).stderr).toContain(REFUSAL);
});
