import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './helpers/project';

/*
 * The packed packages ship their .js.map files (files: ["dist"]) but not src/: a map of
 * @kafka-retry-topology/runtime's dist/runtime/index.js names '../../../../src/runtime/index.ts',
 * outside the installed package. With no sourcesContent, `node --enable-source-maps` in a
 * service pointed stack traces at files that do not exist, with nothing to show of them, and
 * bundlers that read maps of node_modules (Vite; webpack's source-map-loader) warned on every
 * module ("points to missing source files"); seen in the npm pack tarballs of both packages.
 * Class: build output made for the repository, shipped.
 *
 * Fixed with inlineSources in tsconfig.build.json, which packages/runtime/tsconfig.json
 * extends: each map carries the TypeScript it maps to. The paths it names are unchanged, but
 * an error under --enable-source-maps now shows its TypeScript line, read from the map. It
 * costs 0.66 MB installed: a service on kafkajs went from 6.0 to 6.7 MB, the figure
 * docs/router-package.md and the README give (test/kafka/packaged-service.test.ts measures
 * it). No maps at all (5.7 MB) would also pass, but leave traces in the compiled JavaScript.
 */
it.each(['tsconfig.build.json', 'packages/runtime/tsconfig.json'])('%s builds source maps that carry their sources, or none', (config) => {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(REPO_ROOT, config), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
  const { sourceMap, inlineSources, inlineSourceMap } = parsed.options;
  expect(!sourceMap && !inlineSourceMap ? 'no maps' : inlineSources ? 'maps with sources' : 'maps naming files outside the package').not.toBe('maps naming files outside the package');
});
