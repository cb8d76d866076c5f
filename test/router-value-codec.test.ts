import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { z } from 'zod';
import { emitRouter } from '../src/emitters/router';
import { MemoryBroker } from '../src/simulate/memory-broker';
import { VirtualClock } from '../src/simulate/virtual-clock';
import { aConsumer, aTopology, compile, problems } from './helpers/specs';
import { REPO_ROOT } from './helpers/project';

jest.setTimeout(60_000);

/** A package a service would install beside the router package: it exports the decode function. */
const ORDER_EVENTS_DTS = `export interface OrderShipped { readonly orderId: string; readonly parcels: number }
export declare function decodeShipped(value: Buffer | null): Promise<OrderShipped>;
`;
function decodeShipped(value: Buffer | null) {
  return { orderId: String(value), parcels: 1 };
}

const OrderConfirmed = z.object({
  orderId: z.string(),
  amountCents: z.number().int().positive(),
  currency: z.enum(['EUR', 'USD']),
  lines: z.array(z.object({ sku: z.string(), quantity: z.number() })),
  coupon: z.string().nullable().optional(),
});

/** The router package of a topology with a zod codec, a decode codec and no codec, written where a service finds it. */
function routerPackage(): string {
  const result = compile(
    aTopology({
      consumers: [
        aConsumer({ value: OrderConfirmed }),
        aConsumer({ name: 'shipping-order-shipped', topic: { name: 'orders.shipped', partitions: 3 }, principal: 'User:shipping', value: { decode: decodeShipped, from: '@acme/order-events' } }),
        aConsumer({ name: 'audit-order-raw', topic: { name: 'orders.raw', partitions: 3 }, principal: 'User:audit' }),
      ],
    }),
  );
  expect(problems(result)).toEqual([]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-router-codec-'));
  for (const file of emitRouter(result.model!)) {
    mkdirSync(path.dirname(path.join(dir, file.path)), { recursive: true });
    writeFileSync(path.join(dir, file.path), file.content);
  }
  mkdirSync(path.join(dir, 'order-events'));
  writeFileSync(path.join(dir, 'order-events', 'index.d.ts'), ORDER_EVENTS_DTS);
  return dir;
}

/** Services that use the package, type-checked in one program (a program per file would cost a minute each). */
const SERVICES = {
  typed: `
createRetryingConsumer('billing-order-confirmed', { kafka, handler: async ({ value }) => {
  const cents: number = value.amountCents;
  const currency: 'EUR' | 'USD' = value.currency;
  const sku: string = value.lines[0]!.sku;
  const coupon: string | null | undefined = value.coupon;
  void cents; void currency; void sku; void coupon;
} });
createRetryingConsumer('shipping-order-shipped', { kafka, handler: async ({ value }) => { const parcels: number = value.parcels; void parcels; } });
createRetryingConsumer('audit-order-raw', { kafka, handler: async ({ message }) => { const bytes: Buffer | null = message.value; void bytes; } });`,
  misspelled: `createRetryingConsumer('billing-order-confirmed', { kafka, handler: async ({ value }) => { void value.amount; } });`,
  misread: `createRetryingConsumer('billing-order-confirmed', { kafka, handler: async ({ value }) => { const id: number = value.orderId; void id; } });`,
  decodedMisspelled: `createRetryingConsumer('shipping-order-shipped', { kafka, handler: async ({ value }) => { void value.amountCents; } });`,
  bytesOnly: `createRetryingConsumer('audit-order-raw', { kafka, handler: async (record) => { void record.value; } });`,
};

let dir: string;
let errors: Record<keyof typeof SERVICES, string[]>;
beforeAll(() => {
  dir = routerPackage();
  errors = typeCheck(SERVICES);
});

/** Type-checks service files against the generated package (and the package itself); the compiler's messages by file. */
function typeCheck<K extends string>(services: Record<K, string>): Record<K, string[]> {
  const files = Object.fromEntries(Object.keys(services).map((name) => [name, path.join(dir, `${name}.ts`)])) as Record<K, string>;
  for (const [name, body] of Object.entries(services) as [K, string][]) {
    writeFileSync(files[name], `import { createRetryingConsumer } from 'orders-retry-router';\nimport type { KafkaPort } from '@kafka-retry-topology/runtime';\ndeclare const kafka: KafkaPort;\n${body}\nexport {};\n`);
  }
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    skipLibCheck: false,
    types: ['node'],
    baseUrl: REPO_ROOT,
    paths: {
      '@kafka-retry-topology/runtime': ['src/runtime/index.ts'],
      'orders-retry-router': [path.join(dir, 'router/orders/index.d.ts')],
      '@acme/order-events': [path.join(dir, 'order-events/index.d.ts')],
    },
  };
  const program = ts.createProgram(Object.values(files), options);
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName.startsWith(dir));
  const packageErrors = diagnostics.filter((d) => !Object.values(files).includes(d.file!.fileName));
  expect(packageErrors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  return Object.fromEntries(
    Object.entries(files).map(([name, file]) => [name, diagnostics.filter((d) => d.file!.fileName === file).map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)]),
  ) as Record<K, string[]>;
}

describe('a value codec in the generated router package', () => {
  it("types the handler's value from the spec's zod schema, and from the decode function's result", () => {
    expect(errors.typed).toEqual([]);
  });

  it('refuses to compile a field the schema does not have, or a field read as the wrong type', () => {
    expect(errors.misspelled).toEqual(["TS2339: Property 'amount' does not exist on type 'BillingOrderConfirmedValue'."]);
    expect(errors.misread[0]).toMatch(/^TS2322: Type 'string' is not assignable to type 'number'/);
    expect(errors.decodedMisspelled).toEqual(["TS2339: Property 'amountCents' does not exist on type 'OrderShipped'."]);
  });

  it('gives a consumer without a codec no decoded value to misread', () => {
    expect(errors.bytesOnly[0]).toMatch(/^TS2339: Property 'value' does not exist/);
  });

  it('declares the package of a decode function a peer dependency, and requires it only when its consumer is created', async () => {
    const packageJson = JSON.parse(readFileSync(path.join(dir, 'router/orders/package.json'), 'utf8'));
    expect(packageJson.peerDependencies).toEqual({ '@acme/order-events': '*', '@kafka-retry-topology/runtime': `^${require('../package.json').version}` });
    const router = require(path.join(dir, 'router/orders/index.js'));
    const broker = new MemoryBroker(new VirtualClock(0));
    expect(router.createRetryingConsumer('billing-order-confirmed', { kafka: broker.port(), handler: async () => {} }).metrics).toBeDefined();
    expect(() => router.createRetryingConsumer('shipping-order-shipped', { kafka: broker.port(), handler: async () => {} })).toThrow(/^@acme\/order-events could not be loaded \(Cannot find module '@acme\/order-events'.*\); install it beside this package: its decodeShipped decodes this consumer's values$/s);
  });
});

describe('the spec of a value codec', () => {
  const consumerWith = (value: unknown) => problems(compile(aTopology({ consumers: [aConsumer({ value })] })));

  it('refuses a zod schema JSON Schema cannot carry, a relative path and a nameless function, saying what to write', () => {
    expect(consumerWith(z.object({ at: z.date() }))).toEqual([
      expect.stringMatching(/consumers\[0\]\.value: the value schema cannot be written as JSON Schema \(Date cannot be represented in JSON Schema\).*declare a decode function as \{ decode, from \}$/),
    ]);
    expect(consumerWith({ decode: decodeShipped, from: './codecs/orders' })).toEqual([
      expect.stringMatching(/consumers\[0\]\.value: '\.\/codecs\/orders' is not a package name: .* e\.g\. from: '@acme\/order-events'$/),
    ]);
    expect(consumerWith({ decode: (() => (v: unknown) => v)(), from: '@acme/order-events' })).toEqual([
      expect.stringMatching(/the decode function has no name to require it by; set export/),
    ]);
    expect(consumerWith('json')).toEqual([expect.stringMatching(/consumers\[0\]\.value: is neither a zod schema over JSON/)]);
  });
});
