import path from 'node:path';
import ts from 'typescript';
import { MemoryBroker } from '../src/simulate/memory-broker';
import { VirtualClock } from '../src/simulate/virtual-clock';
import { REPO_ROOT } from './helpers/project';

jest.setTimeout(60_000);

const routerDir = path.join(REPO_ROOT, 'generated', 'router', 'orders');

/** Type-checks TypeScript sources the way a service would, against the generated package. */
function typeCheck(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ['node'],
    baseUrl: REPO_ROOT,
    paths: {
      '@kafka-retry-topology/runtime': ['src/runtime/index.ts'],
      'orders-retry-router': ['generated/router/orders/index.d.ts'],
    },
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (file) => files[file] ?? read(file);
  const exists = host.fileExists.bind(host);
  host.fileExists = (file) => file in files || exists(file);
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

const service = (body: string) => ({
  [path.join(REPO_ROOT, 'examples', 'probe.ts')]: `import { createRetryingConsumer, billingOrderConfirmed, type TopicName, type TierLabel } from 'orders-retry-router';\n${body}\nexport {};\n`,
});

describe('the generated router package', () => {
  it('type-checks the example billing service', () => {
    const file = path.join(REPO_ROOT, 'examples', 'billing-service', 'service.ts');
    expect(typeCheck({ [file]: ts.sys.readFile(file)! })).toEqual([]);
  });

  it('accepts the names the spec has', () => {
    expect(
      typeCheck(
        service(`
declare const options: Parameters<typeof createRetryingConsumer>[1];
createRetryingConsumer('billing-order-confirmed', options);
const dlq: TopicName = 'orders.confirmed.dlq';
const tier: TierLabel<'billing-order-confirmed'> = '10m';
const last: '1h' = billingOrderConfirmed.tiers[2].label;
void dlq; void tier; void last;`),
      ),
    ).toEqual([]);
  });

  it('refuses to compile a consumer name the spec does not have', () => {
    const errors = typeCheck(service(`declare const options: Parameters<typeof createRetryingConsumer>[1];\ncreateRetryingConsumer('billing-order-confirmd', options);`));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^TS2345: Argument of type '"billing-order-confirmd"' is not assignable to parameter of type '"billing-order-confirmed"'/);
  });

  it('refuses a topic or tier the spec does not have', () => {
    expect(typeCheck(service(`const t: TopicName = 'orders.confirmed.retry.2m'; void t;`))[0]).toMatch(/^TS(2322|2820): Type '"orders.confirmed.retry.2m"' is not assignable to type 'TopicName'/);
    expect(typeCheck(service(`const l: TierLabel<'billing-order-confirmed'> = '5s'; void l;`))[0]).toMatch(/^TS2322/);
    expect(typeCheck(service(`const x = billingOrderConfirmed.tiers[3]; void x;`))[0]).toMatch(/^TS2493/);
  });

  it('runs: its factory binds the consumer to the runtime, and refuses unknown names at run time too', async () => {
    const router = require(path.join(routerDir, 'index.js'));
    expect(Object.isFrozen(router.billingOrderConfirmed.tiers[0])).toBe(true);
    const broker = new MemoryBroker(new VirtualClock(0));
    const consumer = router.createRetryingConsumer('billing-order-confirmed', { kafka: broker.port(), handler: async () => {} });
    expect(consumer.metrics).toBeDefined();
    expect(() => router.createRetryingConsumer('nope', {})).toThrow('unknown consumer nope; this package has billing-order-confirmed');
  });
});
