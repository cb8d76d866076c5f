import { execFileSync } from 'node:child_process';
import path from 'node:path';
import ts from 'typescript';
import { reachableFrom } from './helpers/imports';
import { REPO_ROOT } from './helpers/project';

jest.setTimeout(120_000);

const exampleDir = path.join(REPO_ROOT, 'examples', 'nestjs-billing');

/** Type-checks the example with its own tsconfig; `replace` swaps file contents, as an edit would. */
function typeCheckExample(replace: Record<string, string> = {}): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(exampleDir, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } })!;
  const host = ts.createCompilerHost(config.options);
  const read = host.readFile.bind(host);
  host.readFile = (file) => replace[file] ?? read(file);
  const program = ts.createProgram(config.fileNames, config.options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.relative(REPO_ROOT, d.file.fileName) : ''} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('@kafka-retry-topology/runtime/nestjs', () => {
  it('is the only subpath that imports Nest: the runtime reaches no Nest package and no file of src/nestjs', () => {
    const runtime = reachableFrom(path.join(REPO_ROOT, 'src', 'runtime', 'index.ts'));
    expect(runtime.packages.filter((p) => p.startsWith('@nestjs/'))).toEqual([]);
    expect(runtime.files.filter((f) => f.startsWith('src/nestjs/'))).toEqual([]);
  });

  it('imports @nestjs/common and @nestjs/core alone, besides the runtime: terminus and microservices stay optional', () => {
    const { files, packages } = reachableFrom(path.join(REPO_ROOT, 'src', 'nestjs', 'index.ts'));
    expect(files.filter((f) => !/^src\/(nestjs|runtime)\//.test(f))).toEqual(['src/duration.ts', 'src/naming/headers.ts', 'src/naming/metrics.ts', 'src/naming/tracing.ts']);
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual(['@nestjs/common', '@nestjs/core', '@opentelemetry/api', 'prom-client']);
  });

  it('type-checks the example app against the generated orders router package, a misspelled consumer name included as a @ts-expect-error', () => {
    expect(typeCheckExample()).toEqual([]);
  });

  it('refuses to compile a @KafkaRetryConsumer() naming a consumer the generated package does not have', () => {
    const fixture = path.join(exampleDir, 'type-tests', 'consumer-name.ts');
    const withoutExpectation = ts.sys.readFile(fixture)!.replace('// @ts-expect-error', '//');
    expect(typeCheckExample({ [fixture]: withoutExpectation })).toEqual([
      `examples/nestjs-billing/type-tests/consumer-name.ts TS2345: Argument of type '"billing-order-confirmd"' is not assignable to parameter of type '"billing-order-confirmed"'.`,
    ]);
  });
});

describe('KafkaRetryModule in a Nest application (on the in-memory broker)', () => {
  // Nest 12 is ESM-only, which jest's module system cannot load on Node 20: the probe runs as a process of its own.
  const result = () => JSON.parse(execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'jiti'), [path.join(__dirname, 'nestjs-module.probe.ts')], { cwd: REPO_ROOT, encoding: 'utf8' }));
  let probe: { kinds: Record<string, string | null>; payments: Record<string, string>; lenient: Record<string, string>; fragile: Record<string, string>; committed: Record<string, number>; monitor: Record<'ok' | 'headUnreadable' | 'down', unknown> };
  beforeAll(() => {
    probe = result();
  });

  it('maps HttpException by status and RpcException by payload, and leaves other errors to the runtime', () => {
    expect(probe.kinds).toEqual({
      'bad-request': 'permanent-data',
      unauthorized: 'permanent-code',
      'not-found': 'ambiguous',
      'request-timeout': 'transient-long',
      'too-many-requests': 'transient-long',
      'service-unavailable': 'transient-long',
      'rpc-status-400': 'permanent-data',
      'rpc-status-503': 'transient-long',
      'rpc-kind-permanent-code': 'permanent-code',
      'rpc-text': null,
      'type-error': null,
      conflict: 'permanent-data',
      teapot: 'permanent-data',
      'fetch-failed': null,
    });
  });

  it('sends permanent exceptions to the DLQ at once and transient ones through the tier, and lets guards and exception filters decide first', () => {
    expect(probe.payments).toEqual({
      'bad-request': 'dlq@1',
      unauthorized: 'dlq@1',
      'not-found': 'dlq@2',
      'request-timeout': 'dlq@2',
      'too-many-requests': 'dlq@2',
      'service-unavailable': 'dlq@2',
      'rpc-status-400': 'dlq@1',
      'rpc-status-503': 'dlq@2',
      'rpc-kind-permanent-code': 'dlq@1',
      'rpc-text': 'dlq@2', // unknown to everyone: the tiers, then the DLQ
      'type-error': 'dlq@1', // the runtime's table: a code error
      conflict: 'done', // the filter returned a value: the record is settled
      teapot: 'dlq@2', // the filter turned a 418 into a 503: the tiers
      'fetch-failed': 'dlq@2', // the module's classifier: the network, the tiers
      guarded: 'dlq@1', // refused by a guard: ForbiddenException
    });
  });

  it("lets a consumer override the mapping with its own classify option, for that consumer only", () => {
    expect(probe.lenient).toEqual({ 'bad-request': 'dlq@2', 'type-error': 'dlq@1' });
  });

  it("still asks the module's classifier and the Nest mapping when a handler's own classifier throws", () => {
    expect(probe.fragile).toEqual({
      'fetch-failed': 'dlq@2', // the module's classifier: the network, through the tiers
      'rpc-status-400': 'dlq@1', // the Nest mapping: a 400, the DLQ at once
      'service-unavailable': 'dlq@2',
    });
  });

  it("runs the DLQ monitor in the shared poll loop: a failed poll drops the consumer's gauges and the health indicator says why", () => {
    const oldest = { oldestUnhandledAt: '2023-11-14T22:13:20.000Z' };
    expect(probe.monitor).toEqual({
      ok: { status: { size: 2, ...oldest }, gauges: { size: 2, oldest: 1_700_000_000 } },
      // The head record could not be read: the gauge keeps its value, and the health indicator shows that same value.
      headUnreadable: { status: { size: 2, ...oldest }, gauges: { size: 2, oldest: 1_700_000_000 } },
      // Kafka is down: no gauge (KafkaRetryMonitorDown fires), the last reading and the error in the health indicator.
      down: { status: { size: 2, ...oldest, error: 'Connection error: connect ECONNREFUSED' }, gauges: { size: null, oldest: null } },
    });
  });

  it('commits every record of every consumer by the time the application has closed', () => {
    expect(probe.committed).toEqual({ payments: 15, lenient: 2, fragile: 3 });
  });
});

describe('KafkaRetryModule shut down while it still bootstraps (app.close() or a SIGTERM as the application starts)', () => {
  it('starts nothing more once the shutdown began: no client stays connected, no consumer says it is connected, and the DLQ monitor does not poll', () => {
    // Nest 12 is ESM-only: the probe runs as a process of its own (see nestjs-shutdown-during-bootstrap.probe.ts).
    const outcome = JSON.parse(execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'jiti'), [path.join(__dirname, 'nestjs-shutdown-during-bootstrap.probe.ts')], { cwd: REPO_ROOT, encoding: 'utf8' }));
    expect(outcome).toEqual({ bootstrap: 'fulfilled', stillConnected: [], connectedByHealth: [], pollsAfterShutdown: 0 });
  });
});
