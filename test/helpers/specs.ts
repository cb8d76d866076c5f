import { compileTopologies } from '../../src/compile';
import type { CompileResult } from '../../src/compile';
import type { ConsumerSpec, TopologySpec } from '../../src/spec/types';

/** A valid consumer; tests override the fields they are about. */
export function aConsumer(overrides: Partial<Record<keyof ConsumerSpec, unknown>> = {}): ConsumerSpec {
  return {
    name: 'billing-order-confirmed',
    topic: { name: 'orders.confirmed', partitions: 12 },
    principal: 'User:billing',
    ladder: ['1m', '10m', '1h'],
    ...overrides,
  } as ConsumerSpec;
}

/** A valid topology around the given consumers. */
export function aTopology(overrides: Partial<Record<keyof TopologySpec, unknown>> = {}): TopologySpec {
  return {
    name: 'orders',
    owner: { team: 'billing', onCall: '#billing-oncall' },
    runbookBaseUrl: 'https://runbooks.example.com/kafka',
    consumers: [aConsumer()],
    ...overrides,
  } as TopologySpec;
}

/** Compiles specs as if each were the default export of `topologies/<name>.ts`. */
export function compile(...specs: unknown[]): CompileResult {
  return compileTopologies(
    specs.map((exported, i) => ({ file: `topologies/${nameOf(exported) ?? `file${i}`}.ts`, exported })),
  );
}

function nameOf(spec: unknown): string | undefined {
  const name = (spec as { name?: unknown } | null)?.name;
  return typeof name === 'string' && /^[a-z0-9-]+$/.test(name) ? name : undefined;
}

/** The diagnostics as `path: message` lines, easy to match in assertions. */
export function problems(result: CompileResult, severity: 'error' | 'warning' = 'error'): string[] {
  return result.diagnostics.filter((d) => d.severity === severity).map((d) => `${d.file}: ${d.path}: ${d.message}`);
}
