/**
 * Runs examples/billing-service as it is, as its own process: `@kafka-retry-topology/runtime`
 * resolves to this repository's runtime sources and `orders-retry-router` to the package
 * `krt synth` generated for topology orders (generated/router/orders), as a service that
 * installed both would have them. Its environment is the example's own (KAFKA_*, PAYMENT_URL,
 * METRICS_PORT).
 */
import path from 'node:path';
import { createJiti } from 'jiti';

const repo = path.resolve(__dirname, '..', '..');

const jiti = createJiti(__filename, {
  alias: {
    '@kafka-retry-topology/runtime': path.join(repo, 'src', 'runtime', 'index.ts'),
    'orders-retry-router': path.join(repo, 'generated', 'router', 'orders', 'index.js'),
  },
});
void jiti.import(path.join(repo, 'examples', 'billing-service', 'service.ts'));
