import { Counter, Registry } from 'prom-client';
import { CounterCells } from '../../src/runtime/counter-cells';

function counterWithCells() {
  const registry = new Registry();
  const cells = new CounterCells<'consumer' | 'outcome'>();
  new Counter({
    name: 'records_total',
    help: 'test',
    labelNames: ['consumer', 'outcome'],
    registers: [registry],
    collect() {
      cells.flushInto(this);
    },
  });
  return { registry, cells };
}

describe('counter cells', () => {
  it('show every increment at each scrape, counted once however often the registry is read', async () => {
    const { registry, cells } = counterWithCells();
    const success = cells.cell({ consumer: 'billing', outcome: 'success' });
    for (let i = 0; i < 3; i++) success.inc();
    expect(await registry.metrics()).toContain('records_total{consumer="billing",outcome="success"} 3');
    success.inc();
    expect(await registry.metrics()).toContain('records_total{consumer="billing",outcome="success"} 4');
    expect(await registry.metrics()).toContain('records_total{consumer="billing",outcome="success"} 4');
  });

  it('give the same series to two lookups of the same labels', async () => {
    const { registry, cells } = counterWithCells();
    cells.cell({ consumer: 'billing', outcome: 'dlq' }).inc();
    cells.cell({ consumer: 'billing', outcome: 'dlq' }).inc();
    expect(await registry.metrics()).toContain('records_total{consumer="billing",outcome="dlq"} 2');
  });
});
