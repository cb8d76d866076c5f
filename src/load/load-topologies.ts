import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createJiti } from 'jiti';
import { loaderFingerprint } from '../cache/fingerprint';
import { installedDecoderPackages } from './decoder-packages';
import type { InstalledPackages } from './decoder-packages';
import { isRefusedWrite } from '../util/refused-write';
import { specError } from '../validate/diagnostic';
import type { Diagnostic } from '../validate/diagnostic';

export const TOPOLOGIES_DIR = 'topologies';

export interface LoadedTopologyFile {
  /** As shown to people: relative to the working directory. */
  readonly file: string;
  readonly exported: unknown;
  /** The decode functions' packages as installed beside the file when it was loaded (see decoder-packages.ts). */
  readonly packages: InstalledPackages;
}

/** `topologies/*.ts` under the working directory, in name order. */
export function discoverTopologyFiles(cwd: string): string[] {
  const dir = path.join(cwd, TOPOLOGIES_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .sort()
    .map((name) => path.join(dir, name));
}

export interface LoadOptions {
  /**
   * A folder where the loader keeps the JavaScript it compiled each file to, found again
   * by the file's path and checked against a hash of its text (so an edited file is
   * compiled again): it saves compiling every file on every run. None by default.
   */
  readonly transpileCache?: string;
}

/**
 * Imports topology files, TypeScript included, without a build step. A file that
 * imports `kafka-retry-topology` gets this very copy of the library, so a spec is
 * checked by the version that runs it.
 */
export async function loadTopologyFiles(
  files: readonly string[],
  cwd: string,
  options: LoadOptions = {},
): Promise<{ loaded: LoadedTopologyFile[]; diagnostics: Diagnostic[] }> {
  const settings = { moduleCache: false, interopDefault: false, alias: { 'kafka-retry-topology': path.resolve(__dirname, '..', 'index') } };
  const fsCache = options.transpileCache === undefined ? false : transpileFolder(options.transpileCache, JSON.stringify(settings));
  const jiti = createJiti(__filename, { ...settings, fsCache });
  let uncached: typeof jiti | undefined;
  /** The file imported; again without the cache when writing the cache was refused (a full disk, another user's folder): a cache only ever makes a run slower. */
  const importFile = async (absolute: string): Promise<unknown> => {
    try {
      return await jiti.import(absolute);
    } catch (error) {
      // A cache the filesystem will not take (found by the attack of session 55: a full disk was reported as an error of the topology file).
      if (fsCache === false || !isRefusedWrite(error)) throw error;
      uncached ??= createJiti(__filename, { ...settings, fsCache: false });
      return uncached.import(absolute);
    }
  };
  const loaded: LoadedTopologyFile[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const absolute of files) {
    const file = path.relative(cwd, absolute) || absolute;
    try {
      const module = (await importFile(absolute)) as { default?: unknown };
      if (module.default === undefined) {
        diagnostics.push(specError(file, '', 'the file has no default export; end it with `export default defineTopology({ ... })`'));
      } else {
        loaded.push({ file, exported: module.default, packages: installedDecoderPackages(module.default, absolute) });
      }
    } catch (error) {
      diagnostics.push(specError(file, '', `the file could not be loaded: ${firstLine(error)}${locationIn(error, absolute)}; fix the TypeScript so that it runs`));
    }
  }
  return { loaded, diagnostics };
}

/**
 * Where in the file it failed, as ` at line 4, column 17`: a parse error names it on its
 * second line, a run-time error in its stack (source-mapped to the TypeScript).
 */
function locationIn(error: unknown, absolute: string): string {
  const { message, stack } = errorText(error);
  const text = `${message}\n${stack}`;
  const escaped = absolute.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(text);
  if (!found) return '';
  // A position the source map could not map back may lie outside the file: say nothing then.
  const [line, column] = [Number(found[1]), Number(found[2])];
  const source = readFileSync(absolute, 'utf8').split('\n')[line - 1];
  return source !== undefined && column <= source.length + 1 ? ` at line ${line}, column ${column}` : '';
}

/** The message's first line, after the error's kind when it has one: `ReferenceError: x is not defined`. */
function firstLine(error: unknown): string {
  const { message } = errorText(error);
  const kind = (error as { name?: unknown } | null)?.name;
  const text = typeof kind === 'string' && kind !== 'Error' && !message.startsWith(kind) ? `${kind}: ${message}` : message;
  return (text.split('\n')[0] ?? text).trim();
}

/** Message and stack of anything thrown; errors of another realm (a vm context) are not `instanceof Error`. */
function errorText(error: unknown): { message: string; stack: string } {
  const { message, stack } = (error ?? {}) as { message?: unknown; stack?: unknown };
  return typeof message === 'string' ? { message, stack: typeof stack === 'string' ? stack : '' } : { message: String(error), stack: '' };
}

/**
 * Removes the transpiled files of other loader settings (another Node, another jiti): best
 * effort, as a cache may only make a run slower, never fail it. Another user's folder, or a
 * file where the folder goes, ended `krt synth --check` in an internal error (found by the
 * attack of session 55).
 */
function removeOtherKeys(root: string, key: string): void {
  let entries: string[];
  try {
    entries = existsSync(root) ? readdirSync(root) : [];
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry === key) continue;
    try {
      rmSync(path.join(root, entry), { recursive: true, force: true });
    } catch {
      // Left for a run that may remove it.
    }
  }
}

/**
 * The loader's cache folder for this loader (jiti's version and files, Node, the options),
 * since jiti checks an entry against the source text alone; false when the loader cannot
 * be identified. The folders of other loaders are removed when this one is first used.
 */
function transpileFolder(root: string, settings: string): string | false {
  const key = loaderFingerprint(settings);
  if (key === undefined) return false;
  const folder = path.join(root, key);
  if (!existsSync(folder)) removeOtherKeys(root, key);
  return folder;
}
