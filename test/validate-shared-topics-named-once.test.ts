import { aConsumer, aTopology, compile } from './helpers/specs';

describe('consumers that share a name and their retry topics', () => {
  it('are told with each shared topic named once, however many consumers share them', () => {
    const result = compile(...Array.from({ length: 4 }, (_, i) => aTopology({ name: `t${i}`, consumers: [aConsumer()] })));
    const shared = result.diagnostics.filter((d) => d.message.includes('also generated for consumer'));
    expect(shared.length).toBeGreaterThan(0);
    for (const d of shared) {
      const named = [...d.message.matchAll(/'([^']+)'/g)].map((m) => m[1]!).filter((t) => t.startsWith('orders.confirmed.'));
      expect(named.filter((t, i) => named.indexOf(t) !== i)).toEqual([]);
    }
  });
});
