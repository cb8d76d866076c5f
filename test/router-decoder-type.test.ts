import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { z } from 'zod';
import { emitRouter } from '../src/emitters/router';
import { aConsumer, aTopology, compile, problems } from './helpers/specs';
import { REPO_ROOT } from './helpers/project';

jest.setTimeout(120_000);

/**
 * #26 (typed values): the generated package types `record.value` from the spec's codec; a
 * service must not be able to swap in a decoder of another type and keep the old type.
 */
const OrderConfirmed = z.object({ orderId: z.string(), amountCents: z.number().int() });

function serviceErrors<K extends string>(bodies: Record<K, string>): Record<K, string[]> {
  const result = compile(aTopology({ consumers: [aConsumer({ value: OrderConfirmed })] }));
  expect(problems(result)).toEqual([]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'krt-decoder-type-'));
  for (const file of emitRouter(result.model!)) {
    mkdirSync(path.dirname(path.join(dir, file.path)), { recursive: true });
    writeFileSync(path.join(dir, file.path), file.content);
  }
  const files = Object.fromEntries(Object.entries<string>(bodies).map(([name, body]) => {
    const file = path.join(dir, `${name}.ts`);
    writeFileSync(file, `import { createRetryingConsumer } from 'orders-retry-router';\nimport type { KafkaPort } from '@kafka-retry-topology/runtime';\ndeclare const kafka: KafkaPort;\n${body}\nexport {};\n`);
    return [name, file];
  })) as Record<K, string>;
  const program = ts.createProgram(Object.values(files), {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    types: ['node'],
    baseUrl: REPO_ROOT,
    paths: { '@kafka-retry-topology/runtime': ['src/runtime/index.ts'], 'orders-retry-router': [path.join(dir, 'router/orders/index.d.ts')] },
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  return Object.fromEntries(
    Object.entries<string>(files).map(([name, file]) => [name, diagnostics.filter((d) => d.file?.fileName === file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))]),
  ) as Record<K, string[]>;
}

let errors: Record<'swapped' | 'misspelled', string[]>;
beforeAll(() => {
  errors = serviceErrors({
    swapped: `createRetryingConsumer('billing-order-confirmed', {
  kafka,
  decodeValue: (bytes) => bytes?.length ?? 0,
  handler: async ({ value }) => { void value.amountCents.toFixed(); },
});`,
    misspelled: `createRetryingConsumer('billing-order-confirmed', { kafka, handler: async ({ value }) => { void value.amount; } });`,
  });
});

describe("a service's own decodeValue on a consumer whose spec gives it a codec", () => {
  // Once a defect (#26, src/runtime/retrying-consumer.ts:43 `decodeValue?: ValueDecoder`, i.e. ValueDecoder<unknown>,
  // with the generated createRetryingConsumer typing the handler from the spec): a decodeValue that
  // returns something else entirely compiles, and replaces the spec's codec at run time
  // (value-codec.ts:26 and the generated withDecoder), while the handler is still typed with the spec's
  // value: `value.amountCents.toFixed()` compiles and throws. Class: the options type does not tie the
  // decoder's result to the handler's value. Fix: `decodeValue?: ValueDecoder<ValueOf<Received>>`.
  it("refuses to compile a decodeValue whose result is not the spec's value type", () => {
    expect(errors.swapped).not.toEqual([]);
  });

  it('type-checks the package here: a misspelled field is refused (held)', () => {
    expect(errors.misspelled).toEqual(["Property 'amount' does not exist on type 'BillingOrderConfirmedValue'."]);
  });
});
