import { NO_PACKAGES } from './load/decoder-packages';
import type { InstalledPackages } from './load/decoder-packages';
import { loadTopologyFiles } from './load/load-topologies';
import type { LoadOptions } from './load/load-topologies';
import { buildTopologyModel, deepFreeze } from './model/build';
import { checkMoves, handOverMoves } from './model/hand-over';
import type { ParsedConsumerAt } from './model/build';
import type { ProjectModel, TopologyModel } from './model/types';
import type { ParsedConsumer, ParsedTopology } from './spec/schema';
import type { z } from 'zod';
import { consumerSchema, topologySchema } from './spec/schema';
import { checkTopology } from './validate/consumer-rules';
import { hasErrors, sortDiagnostics, specError } from './validate/diagnostic';
import type { Diagnostic } from './validate/diagnostic';
import { checkProject } from './validate/project-rules';
import { fieldsAt } from './validate/schema-fields';
import { unparsedFields } from './validate/unparsed-fields';
import { describeValue, PARSE_OPTIONS, zodIssuesToDiagnostics } from './validate/zod-issues';

export interface CompileResult {
  /** Present only when there are no errors (warnings allowed). */
  readonly model?: ProjectModel;
  readonly diagnostics: readonly Diagnostic[];
}

/** One topology file compiled on its own, before the rules across files. */
export interface CompiledFile {
  readonly file: string;
  /** Absent when the export is not a topology at all. */
  readonly topology?: TopologyModel;
  /** The same topology less the consumers whose naming fields did not parse: what the collision rules see. */
  readonly settled?: TopologyModel;
  /** Problems of this file alone: its parse and the rules within one topology. */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Spec to model: parse every file and every consumer, build the model of what parsed,
 * then check it. Every problem is collected; nothing is written here.
 */
/**
 * What a compile covers: every topology file of the project, or some of them (a partial
 * run: moves across files are then checked on the model merged with the committed one,
 * plan/partial.ts, since a previousTopology may name a topology of a file not named).
 */
export type CompileScope = 'project' | 'some files';

/** A topology file's export, and the decode packages the loader found installed beside it (none unless given). */
export interface CompileInput {
  readonly file: string;
  readonly exported: unknown;
  readonly packages?: InstalledPackages;
}

export function compileTopologies(loaded: readonly CompileInput[], scope: CompileScope = 'project'): CompileResult {
  return combineTopologies(loaded.map(({ file, exported, packages }) => compileTopologyFile(file, exported, packages)), scope);
}

/** Parses one file's export and builds its topology model; the rules across files come later. */
export function compileTopologyFile(file: string, exported: unknown, packages: InstalledPackages = NO_PACKAGES): CompiledFile {
  const diagnostics: Diagnostic[] = [];
  if (exported === null || typeof exported !== 'object' || Array.isArray(exported)) {
    return { file, diagnostics: [specError(file, '', notATopology(exported))] };
  }
  /** Consumers whose names came out as defaults: checked alone, kept out of the collision rules. */
  const unsettled = new Set<string>();
  /** Per consumer, the fields the rules must not read: they hold defaults in place of what did not parse. */
  const unparsed = new Map<string, Set<string>>();
  const parsed = topologySchema.safeParse(exported, PARSE_OPTIONS);
  if (!parsed.success) diagnostics.push(...zodIssuesToDiagnostics(file, parsed.error, '', (path) => fieldsAt(topologySchema, path)));
  // Every generated name depends on the topology's naming style: if it did not parse,
  // the names computed with the default style are not the names meant.
  const namingUnparsed = !parsed.success && unparsedFields(parsed.error.issues, Object.keys(topologySchema.shape)).has('naming');
  const rawConsumers = (exported as { consumers?: unknown }).consumers;
  if (!Array.isArray(rawConsumers)) return { file, diagnostics };
  const consumers: ParsedConsumerAt[] = [];
  rawConsumers.forEach((raw, index) => {
    const path = `consumers[${index}]`;
    const consumer = consumerSchema.safeParse(raw, PARSE_OPTIONS);
    const fields = consumer.success ? new Set<string>() : unparsedFields(consumer.error.issues, Object.keys(consumerSchema.shape));
    if (namingUnparsed) fields.add('naming');
    unparsed.set(path, fields);
    if (!consumer.success) {
      diagnostics.push(...zodIssuesToDiagnostics(file, consumer.error, path, (at) => fieldsAt(consumerSchema, at)));
      if (consumer.error.issues.some(unsettlesNames)) unsettled.add(path);
    }
    if (namingUnparsed) unsettled.add(path);
    const spec = consumer.success ? consumer.data : provisionalConsumer(raw, index);
    if (spec) consumers.push({ spec, source: { file, path } });
  });
  // Cross-field rules run on the consumers that parsed even when a topology field did
  // not, so one run shows every problem; such a model is only checked, never emitted.
  const topology = buildTopologyModel(parsed.success ? parsed.data : provisionalTopology(exported), consumers, file);
  // A consumer whose naming field did not parse (often a misspelt one) has defaults in
  // its place; collisions computed from those would only be knock-on errors of that field.
  const settled = unsettled.size === 0 ? topology : { ...topology, consumers: topology.consumers.filter((c) => !unsettled.has(c.source.path)) };
  return { file, topology, settled, diagnostics: [...diagnostics, ...checkTopology(topology, (path) => unparsed.get(path) ?? new Set(), packages)] };
}

/** The rules across files, then the project's model when nothing is an error. */
export function combineTopologies(files: readonly CompiledFile[], scope: CompileScope = 'project'): CompileResult {
  const topologies = files.flatMap((f) => (f.topology ? [f.topology] : []));
  const settled = files.flatMap((f) => (f.settled ? [f.settled] : []));
  const diagnostics = [...files.flatMap((f) => f.diagnostics), ...checkProject({ topologies: settled }), ...(scope === 'project' ? checkMoves(settled) : [])];
  const sorted = sortDiagnostics(diagnostics);
  return hasErrors(sorted) ? { diagnostics: sorted } : { model: deepFreeze({ topologies: handOverMoves(topologies) }), diagnostics: sorted };
}

/** The consumer fields that the generated topic and group names depend on. */
const NAMING_FIELDS = new Set<PropertyKey>(['name', 'topic', 'group', 'retryTopicBase', 'ladder', 'ordering']);

/** An issue on a naming field, or an unknown field at the consumer's top, which may be a misspelt naming field. */
function unsettlesNames(issue: z.core.$ZodIssue): boolean {
  const [field] = issue.path;
  return field === undefined ? issue.code === 'unrecognized_keys' : NAMING_FIELDS.has(field);
}

function notATopology(exported: unknown): string {
  if (typeof exported === 'function') {
    return 'the default export is a function, not a topology; call it: `export default defineTopology({ ... })`';
  }
  return `the default export is ${describeValue(exported)}, not a topology; end the file with \`export default defineTopology({ ... })\``;
}

/** Parses one field of an object spec on its own, or gives the fallback. */
function fieldPicker<Shape extends Record<string, z.ZodType>>(shape: Shape, raw: unknown) {
  const fields = (raw !== null && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  return <K extends keyof Shape & string>(key: K, fallback: z.output<Shape[K]>): z.output<Shape[K]> => {
    const result = shape[key]!.safeParse(fields[key]);
    return result.success ? (result.data as z.output<Shape[K]>) : fallback;
  };
}

/**
 * Every field of `shape` that parses from `raw`, the others at `fallbacks` (undefined when not
 * named there). Every field, not a list of them: a field left out was taken as absent, and the
 * rules on it (a decommission, a previous topology) were skipped in a run with a parse error.
 */
function parsedFields<Shape extends Record<string, z.ZodType>>(shape: Shape, raw: unknown, fallbacks: { [K in keyof Shape]?: z.output<Shape[K]> }): { [K in keyof Shape]: z.output<Shape[K]> } {
  const pick = fieldPicker(shape, raw);
  return Object.fromEntries(Object.keys(shape).map((key) => [key, pick(key, fallbacks[key] as z.output<Shape[string]>)])) as { [K in keyof Shape]: z.output<Shape[K]> };
}

/**
 * The consumer fields that parse, the others left to their defaults, so the rules that
 * relate fields still run. A consumer without a usable main topic is left out.
 */
function provisionalConsumer(raw: unknown, index: number): ParsedConsumer | undefined {
  const consumer = parsedFields(consumerSchema.shape, raw, { name: `unnamed-consumer-${index}`, principal: 'User:unknown', ladder: [] });
  return consumer.topic === undefined ? undefined : consumer;
}

/** The topology fields that parse, with placeholders for those that do not (its consumers are parsed one by one). */
function provisionalTopology(raw: unknown): ParsedTopology {
  const { consumers: _consumers, ...topology } = parsedFields(topologySchema.shape, raw, { name: '', owner: { team: '', onCall: '' }, runbookBaseUrl: 'https://invalid.example' });
  return topology;
}

export const NO_TOPOLOGY_FILES = specError('topologies', '', 'no topology files found; add topologies/<name>.ts that default-exports defineTopology({ ... })');

/**
 * The topology files compiled into one model. No files at all is an error (nothing to
 * generate), but for a project whose committed output still has stacks (`retired`, which
 * the commands that judge against that output say): its last topology file was deleted,
 * and its stack must still be generated, empty, so that applying it deletes what it holds.
 */
export async function compileFiles(files: readonly string[], cwd: string, options?: LoadOptions, scope: CompileScope = 'project', retired = false): Promise<CompileResult> {
  if (files.length === 0) return retired && scope === 'project' ? { model: { topologies: [] }, diagnostics: [] } : { diagnostics: [NO_TOPOLOGY_FILES] };
  const { loaded, diagnostics } = await loadTopologyFiles(files, cwd, options);
  const result = compileTopologies(loaded, scope);
  const all = sortDiagnostics([...diagnostics, ...result.diagnostics]);
  return hasErrors(all) ? { diagnostics: all } : { ...result, diagnostics: all };
}
