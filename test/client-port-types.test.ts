import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './helpers/project';

/*
 * A service's own TypeScript, with the real clients' type declarations (the packages
 * installed in this repository), calling the ports the way docs/runtime.md and
 * docs/nestjs.md write them: `kafkajsPort(new Kafka(...))`, `confluentPort(new
 * KafkaJS.Kafka(...))` and `platformaticPort({ Consumer, Producer }, { connection })`.
 * The ports take structural types so that no client is a dependency; those types must
 * still accept what each client's own declarations say its classes are. The repository's
 * other tests reach the Confluent and @platformatic/kafka clients through `require`, cast
 * to the structural type, so a port that refused the real client compiled nowhere here.
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
    paths: { '@kafka-retry-topology/runtime': ['src/runtime/index.ts'] },
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
