import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../helpers/project';

/*
 * A service's own TypeScript, with the real clients' type declarations (the packages
 * installed in this repository), calling the ports the way docs/runtime.md and
 * docs/nestjs.md write them: `kafkajsPort(new Kafka(...))`, `confluentPort(new
 * KafkaJS.Kafka(...))` and `platformaticPort({ Consumer, Producer }, { connection })`.
 * The ports take structural types so that no client is a dependency; those types must
 * still accept what each client's own declarations say its classes are. The repository's
 * other tests reach the Confluent and @platformatic/kafka clients through `require`, cast
 * to the structural type, so a port that refused the real client compiled nowhere here.
 * In the broker project, though it needs no broker: its set-up makes the Confluent client
 * load (scripts/tools/confluent.sh), and `npm ci` drops that optional package, types and
 * all, when its native build fails, as on a fresh machine.
 */

jest.setTimeout(120_000);

type Settings = { name: string; options: ts.CompilerOptions };

const SETTINGS: Settings[] = [
  { name: 'strict', options: { strict: true } },
  { name: 'strict with exactOptionalPropertyTypes', options: { strict: true, exactOptionalPropertyTypes: true } },
  { name: 'not strict', options: { strict: false } },
];

function typeCheck(source: string, extra: ts.CompilerOptions): string[] {
  const file = path.join(REPO_ROOT, 'examples', 'client-port-probe.ts');
  const options: ts.CompilerOptions = {
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    // The clients' own declarations are theirs to check (@platformatic/kafka's need undici's and debug's types).
    skipLibCheck: true,
    types: ['node'],
    baseUrl: REPO_ROOT,
    paths: { '@kafka-retry-topology/runtime': ['src/runtime/index.ts'], '@kafka-retry-topology/runtime/nestjs': ['src/nestjs/index.ts'] },
    experimentalDecorators: true,
    ...extra,
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => (f === file ? source : read(f));
  const exists = host.fileExists.bind(host);
  host.fileExists = (f) => f === file || exists(f);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === file)
    .map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]}`);
}

const PROBES: Record<string, string> = {
  kafkajs: `
import { Kafka } from 'kafkajs';
import { kafkajsPort, kafkajsMonitorPort } from '@kafka-retry-topology/runtime';
const kafka = new Kafka({ clientId: 'billing', brokers: ['kafka-1:9093'], sasl: { mechanism: 'plain', username: 'billing', password: 'x' } });
export const port = kafkajsPort(kafka);
export const monitor = kafkajsMonitorPort(kafka, 'billing-order-confirmed.dlq-monitor');
`,
  '@confluentinc/kafka-javascript': `
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { confluentPort } from '@kafka-retry-topology/runtime';
export const port = confluentPort(new KafkaJS.Kafka({ kafkaJS: { clientId: 'billing', brokers: ['kafka-1:9093'] } }));
`,
  '@platformatic/kafka': `
import { Consumer, Producer } from '@platformatic/kafka';
import { platformaticPort } from '@kafka-retry-topology/runtime';
export const port = platformaticPort({ Consumer, Producer }, { connection: { clientId: 'billing', bootstrapBrokers: ['kafka-1:9093'] } });
`,
};

describe.each(SETTINGS)("a service's TypeScript ($name) passing the real client to its port", ({ options }) => {
  it.each(Object.keys(PROBES))('compiles with %s as its own declarations type it', (client) => {
    expect(typeCheck(PROBES[client]!, options)).toEqual([]);
  });
});

/*
 * Under exactOptionalPropertyTypes an optional option declared `x?: T` refuses `undefined`,
 * so a service passing its own optional settings through (`registry: config.registry`, a
 * NestJS useFactory building the options from configuration) did not compile. The runtime
 * reads each of these options with `??` or a spread, so `undefined` is the default there.
 */
it('compiles, under exactOptionalPropertyTypes, a service passing its own possibly undefined settings as the optional options', () => {
  const source = `
import { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import { createDlqMonitor, createRetryingConsumer, kafkajsMonitorPort, kafkajsPort, confluentPort, platformaticPort, type ErrorClassifier, type ConsumerDescriptor, type RetryEventListener } from '@kafka-retry-topology/runtime';
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { Consumer, Producer } from '@platformatic/kafka';

export function start(descriptor: ConsumerDescriptor, config: { registry?: Registry; classify?: ErrorClassifier; stackTraces?: boolean; onEvent?: RetryEventListener; intervalMs?: number; concurrency?: number; session?: Record<string, unknown>; onCrash?: (error: unknown, restartInMs: number) => void }) {
  const kafka = new Kafka({ clientId: 'billing', brokers: ['kafka-1:9093'] });
  const consumer = createRetryingConsumer(descriptor, {
    kafka: kafkajsPort(kafka, { consumerConfig: config.session, onCrash: config.onCrash }),
    handler: async () => {},
    registry: config.registry,
    classify: config.classify,
    includeStackTraces: config.stackTraces,
    onEvent: config.onEvent,
    partitionsConsumedConcurrently: config.concurrency,
  });
  const monitor = createDlqMonitor(descriptor, { port: kafkajsMonitorPort(kafka, descriptor.groups.monitor), registry: config.registry, intervalMs: config.intervalMs, onError: undefined });
  const confluent = confluentPort(new KafkaJS.Kafka({ kafkaJS: { brokers: ['kafka-1:9093'] } }), { consumerConfig: config.session, onNotCoPartitioned: undefined });
  const platformatic = platformaticPort({ Consumer, Producer }, { connection: {}, consumerConfig: config.session, onError: undefined, nodeVersion: undefined });
  return { consumer, monitor, confluent, platformatic };
}
`;
  expect(typeCheck(source, { strict: true, exactOptionalPropertyTypes: true })).toEqual([]);
});

it('compiles, under exactOptionalPropertyTypes, the NestJS module and a handler given possibly undefined optional settings', () => {
  const source = `
import { Kafka } from 'kafkajs';
import type { Registry } from 'prom-client';
import { kafkajsMonitorPort, kafkajsPort, type ErrorClassifier, type RetryEventListener } from '@kafka-retry-topology/runtime';
import { KafkaRetryConsumer, KafkaRetryModule, OnRecord, type KafkaRetryConsumerDefaults } from '@kafka-retry-topology/runtime/nestjs';

declare const config: { registry?: Registry; classify?: ErrorClassifier; onEvent?: RetryEventListener; defaults?: KafkaRetryConsumerDefaults; monitorEveryMs?: number; monitor?: boolean };
const kafka = new Kafka({ clientId: 'billing', brokers: ['kafka-1:9093'] });
export const module = KafkaRetryModule.forRoot({
  kafka: kafkajsPort(kafka),
  registry: config.registry,
  classify: config.classify,
  onEvent: config.onEvent,
  defaults: config.defaults,
  dlqMonitor: config.monitor ? { port: (consumer) => kafkajsMonitorPort(kafka, consumer.groups.monitor), intervalMs: config.monitorEveryMs } : undefined,
});
declare const consumers: { readonly 'billing-order-confirmed': import('@kafka-retry-topology/runtime').ConsumerDescriptor };
@KafkaRetryConsumer(consumers, 'billing-order-confirmed', { classify: config.classify })
export class Handler {
  @OnRecord()
  async handle(): Promise<void> {}
}
`;
  expect(typeCheck(source, { strict: true, exactOptionalPropertyTypes: true })).toEqual([]);
});
