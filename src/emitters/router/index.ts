import { consumerConstantName, routerPackageName } from '../../naming';
import type { TopologyModel } from '../../model/types';
import type { Emitter, GeneratedFile } from '../types';
import { GENERATED_NOTICE } from '../types';
import { consumerDescriptor } from './descriptor';
import { literalType } from './typescript-literal';

const RUNTIME = 'kafka-retry-topology/runtime';

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
    peerDependencies: { 'kafka-retry-topology': '*' },
  };
  return [
    { path: `${dir}/package.json`, content: `${JSON.stringify(packageJson, null, 2)}\n` },
    { path: `${dir}/index.d.ts`, content: declarations(descriptors) },
    { path: `${dir}/index.js`, content: implementation(descriptors) },
  ];
}

type Entry = { constant: string; descriptor: ReturnType<typeof consumerDescriptor> };

function declarations(entries: Entry[]): string {
  const union = (values: string[]) => [...new Set(values)].map((v) => JSON.stringify(v)).join(' | ');
  return [
    `// ${GENERATED_NOTICE}`,
    `import type { RetryingConsumer, RetryingConsumerOptions, Router, RouterOptions } from '${RUNTIME}';`,
    '',
    ...entries.flatMap(({ constant, descriptor }) => [`export declare const ${constant}: ${literalType(descriptor)};`, '']),
    `/** Every consumer of this topology, by name. */`,
    `export declare const consumers: {\n${entries.map((e) => `  readonly ${JSON.stringify(e.descriptor.name)}: typeof ${e.constant};`).join('\n')}\n};`,
    '',
    `export type ConsumerName = keyof typeof consumers;`,
    `/** The retry tiers of a consumer, as their labels (\`1m\`, \`10m\`). */`,
    `export type TierLabel<N extends ConsumerName> = (typeof consumers)[N]['tiers'][number]['label'];`,
    `/** Every topic a consumer of this topology reads or writes. */`,
    `export type TopicName = ${union(entries.flatMap((e) => [e.descriptor.mainTopic, ...e.descriptor.tiers.map((t) => t.topic), e.descriptor.dlqTopic]))};`,
    '',
    `/** The main and retry consumers of \`name\`, with failures routed as its spec says. */`,
    `export declare function createRetryingConsumer(name: ConsumerName, options: RetryingConsumerOptions): RetryingConsumer;`,
    `/** The low-level router of \`name\`, for a consumer loop of your own. */`,
    `export declare function createRouter(name: ConsumerName, options: RouterOptions): Router;`,
    '',
  ].join('\n');
}

function implementation(entries: Entry[]): string {
  return [
    `// ${GENERATED_NOTICE}`,
    `'use strict';`,
    `const runtime = require('${RUNTIME}');`,
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
    `  if (!descriptor) throw new Error(\`unknown consumer \${name}; this package has \${Object.keys(consumers).join(', ')}\`);`,
    `  return descriptor;`,
    `}`,
    '',
    ...entries.map(({ constant }) => `exports.${constant} = ${constant};`),
    `exports.consumers = consumers;`,
    `exports.createRetryingConsumer = (name, options) => runtime.createRetryingConsumer(descriptorOf(name), options);`,
    `exports.createRouter = (name, options) => runtime.createRouter(descriptorOf(name), options);`,
    '',
  ].join('\n');
}
