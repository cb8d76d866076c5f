import { consumerConstantName, consumerValueTypeName, packageOfSpecifier, routerPackageName, RUNTIME_PACKAGE } from '../../naming';
import type { TopologyModel } from '../../model/types';
import type { Emitter, GeneratedFile } from '../types';
import { GENERATED_NOTICE } from '../types';
import { consumerDescriptor } from '../../model/consumer-descriptor';
import { jsonSchemaType } from './json-schema-type';
import { literalType } from './typescript-literal';
import { ownVersion } from '../../util/own-package';

/**
 * `router/<topology>/`: a small package of typed constants, one per consumer, and thin
 * factories bound to the runtime. A service that names a consumer, tier or topic the
 * spec does not have fails to compile.
 */
export const emitRouter: Emitter = (model) => model.topologies.flatMap((topology) => routerPackage(topology));

function routerPackage(topology: TopologyModel): GeneratedFile[] {
  const dir = `router/${topology.name}`;
  const descriptors = topology.consumers.map((c) => ({ constant: consumerConstantName(c.name), descriptor: consumerDescriptor(c) }));
  const packageJson = {
    '//': GENERATED_NOTICE,
    name: routerPackageName(topology.name),
    version: '0.0.0',
    private: true,
    description: `Typed retry routing for the consumers of topology ${topology.name}`,
    main: 'index.js',
    types: 'index.d.ts',
    peerDependencies: Object.fromEntries(
      [...new Set([RUNTIME_PACKAGE, ...descriptors.flatMap(({ descriptor }) => (descriptor.value?.kind === 'decode' ? [packageOfSpecifier(descriptor.value.module)] : []))])]
        .sort()
        // The package calls the runtime and names its types as this generator's runtime has them: that line only.
        .map((name) => [name, name === RUNTIME_PACKAGE ? runtimeRange() : '*']),
    ),
  };
  return [
    { path: `${dir}/package.json`, content: `${JSON.stringify(packageJson, null, 2)}\n` },
    { path: `${dir}/index.d.ts`, content: declarations(descriptors) },
    { path: `${dir}/index.js`, content: implementation(descriptors) },
  ];
}

/** The runtime versions a generated package works with: this generator's line (`^0.1.0`: 0.1.x; `^1.2.0`: 1.x). */
function runtimeRange(): string {
  return `^${ownVersion()}`;
}

type Entry = { constant: string; descriptor: ReturnType<typeof consumerDescriptor> };

function declarations(entries: Entry[]): string {
  const withValues = entries.filter((e) => e.descriptor.value !== undefined);
  const union = (values: string[]) => [...new Set(values)].map((v) => JSON.stringify(v)).join(' | ');
  return [
    `// ${GENERATED_NOTICE}`,
    `import type { ConsumedRecord, DecodedRecord, RetryingConsumer, RetryingConsumerOptions, Router, RouterOptions } from '${RUNTIME_PACKAGE}';`,
    '',
    ...entries.flatMap(({ constant, descriptor }) => [`export declare const ${constant}: ${literalType(descriptor)};`, '']),
    ...entries.flatMap(({ descriptor }) => valueType(descriptor)),
    `/** What the handler of each consumer with a value codec receives as \`record.value\`. */`,
    `export interface ConsumerValues {${withValues.map((e) => `\n  ${JSON.stringify(e.descriptor.name)}: ${consumerValueTypeName(e.descriptor.name)};`).join('')}${withValues.length > 0 ? '\n' : ''}}`,
    '',
    `/** Every consumer of this topology, by name. */`,
    `export declare const consumers: {\n${entries.map((e) => `  readonly ${JSON.stringify(e.descriptor.name)}: typeof ${e.constant};`).join('\n')}\n};`,
    '',
    `export type ConsumerName = keyof typeof consumers;`,
    `/** The retry tiers of a consumer, as their labels (\`1m\`, \`10m\`). */`,
    `export type TierLabel<N extends ConsumerName> = (typeof consumers)[N]['tiers'][number]['label'];`,
    `/** Every topic a consumer of this topology reads or writes. */`,
    `export type TopicName = ${union(entries.flatMap((e) => [e.descriptor.mainTopic, ...e.descriptor.tiers.map((t) => t.topic), e.descriptor.dlqTopic]))};`,
    '',
    `/** The record the handler of \`name\` receives: with its value decoded when the spec gives it a value codec. */`,
    `export type ConsumerRecord<N extends ConsumerName> = N extends keyof ConsumerValues ? DecodedRecord<ConsumerValues[N]> : ConsumedRecord;`,
    '',
    `/** The main and retry consumers of \`name\`, with failures routed as its spec says. */`,
    `export declare function createRetryingConsumer<N extends ConsumerName>(name: N, options: RetryingConsumerOptions<ConsumerRecord<N>>): RetryingConsumer;`,
    `/** The low-level router of \`name\`, for a consumer loop of your own. */`,
    `export declare function createRouter(name: ConsumerName, options: RouterOptions): Router;`,
    '',
  ].join('\n');
}

/** The type of a consumer's values: written out from its JSON Schema, or the decode function's result. */
function valueType(descriptor: Entry['descriptor']): string[] {
  const codec = descriptor.value;
  if (!codec) return [];
  const name = consumerValueTypeName(descriptor.name);
  if (codec.kind === 'json-schema') {
    return [`/** The value the handler of ${descriptor.name} receives: JSON its spec's schema accepts. */`, `export type ${name} = ${jsonSchemaType(codec.schema)};`, ''];
  }
  return [
    `/** The value the handler of ${descriptor.name} receives: what ${codec.export} from ${codec.module} returns. */`,
    `export type ${name} = Awaited<ReturnType<typeof import(${JSON.stringify(codec.module)}).${codec.export}>>;`,
    '',
  ];
}

/** The consumers whose values a function decodes, required only when such a consumer is created. */
function decoders(entries: Entry[]): string[] {
  const named = entries.flatMap(({ descriptor }) => (descriptor.value?.kind === 'decode' ? [{ name: descriptor.name, ...descriptor.value }] : []));
  if (named.length === 0) return [`exports.createRetryingConsumer = (name, options) => runtime.createRetryingConsumer(descriptorOf(name), options);`];
  return [
    `const decoders = {`,
    ...named.map((d) => `  ${JSON.stringify(d.name)}: () => decoderFrom(() => require(${JSON.stringify(d.module)}), ${JSON.stringify(d.module)}, ${JSON.stringify(d.export)}),`),
    `};`,
    '',
    `function decoderFrom(load, from, name) {`,
    `  let exported;`,
    `  try {`,
    `    exported = load();`,
    `  } catch (error) {`,
    `    throw new runtime.KrtError(\`\${from} could not be loaded (\${error.message}); install it beside this package: its \${name} decodes this consumer's values\`, { cause: error });`,
    `  }`,
    `  if (typeof exported[name] !== 'function') throw new runtime.KrtError(\`\${from} exports no function \${name}; update it, or the spec's value codec, and run krt synth again\`);`,
    `  return exported[name];`,
    `}`,
    '',
    `function withDecoder(name, options) {`,
    `  const decoder = decoders[name];`,
    `  return decoder && !options.decodeValue ? { ...options, decodeValue: decoder() } : options;`,
    `}`,
    '',
    `exports.createRetryingConsumer = (name, options) => runtime.createRetryingConsumer(descriptorOf(name), withDecoder(name, options));`,
  ];
}

function implementation(entries: Entry[]): string {
  return [
    `// ${GENERATED_NOTICE}`,
    `'use strict';`,
    `const runtime = require('${RUNTIME_PACKAGE}');`,
    '',
    ...entries.flatMap(({ constant, descriptor }) => [`const ${constant} = deepFreeze(${JSON.stringify(descriptor, null, 2)});`, '']),
    `const consumers = Object.freeze({\n${entries.map((e) => `  ${JSON.stringify(e.descriptor.name)}: ${e.constant},`).join('\n')}\n});`,
    '',
    `function deepFreeze(value) {`,
    `  for (const child of Object.values(value)) if (child && typeof child === 'object') deepFreeze(child);`,
    `  return Object.freeze(value);`,
    `}`,
    '',
    `function descriptorOf(name) {`,
    `  const descriptor = consumers[name];`,
    `  if (!descriptor) throw new runtime.KrtError(\`unknown consumer \${name}; this package has \${Object.keys(consumers).join(', ')}\`);`,
    `  return descriptor;`,
    `}`,
    '',
    ...entries.map(({ constant }) => `exports.${constant} = ${constant};`),
    `exports.consumers = consumers;`,
    ...decoders(entries),
    `exports.createRouter = (name, options) => runtime.createRouter(descriptorOf(name), options);`,
    '',
  ].join('\n');
}
