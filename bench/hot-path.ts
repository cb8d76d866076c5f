import { encodeRetryHeaders } from '../src/runtime/headers';
import { resolveDestination } from '../src/runtime/resolve';
import type { ConsumerDescriptor } from '../src/runtime/descriptor';

const consumer: ConsumerDescriptor = {
  name: 'bench',
  mainTopic: 'orders',
  groups: { main: 'bench', retry: 'bench.retry', replay: 'bench.dlq-replay', monitor: 'bench.dlq-monitor' },
  tiers: [
    { index: 1, topic: 'orders.retry.10s', delayMs: 10_000, label: '10s' },
    { index: 2, topic: 'orders.retry.1m', delayMs: 60_000, label: '1m' },
  ],
  dlqTopic: 'orders.dlq',
  inPlace: { attempts: 1, backoffMs: 100, maxBackoffMs: 1000, jitter: 0.5 },
  errorPolicy: { permanent: [], ambiguous: [], ambiguousTiers: 0 },
  ordering: 'unordered',
  headerStyle: 'x',
};

/** Resolve a destination and encode its headers, as the router does for each failure: operations per second. */
export function benchHotPath(durationMs = 1_000, rounds = 5): { opsPerSecond: number } {
  let sink = 0;
  const results: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let ops = 0;
    const end = performance.now() + durationMs;
    while (performance.now() < end) {
      for (let i = 0; i < 1_000; i++) {
        const d = resolveDestination(consumer, { topic: i % 2 ? 'orders' : 'orders.retry.10s', kind: 'transient-long', triesInPlace: 1, now: 1_700_000_000_000 + i });
        const headers = encodeRetryHeaders({
          attempt: d.kind === 'in-place' ? 1 : d.attempt,
          dueAt: d.kind === 'tier' ? d.dueAt : undefined,
          firstFailedAt: 1_700_000_000_000,
          originalTopic: 'orders',
          originalPartition: i % 12,
          originalOffset: String(i),
          errorClass: 'HTTPError',
          errorMessage: 'payment-svc 503',
        });
        sink += headers['x-attempt']!.length;
      }
      ops += 1_000;
    }
    results.push((ops * 1000) / durationMs);
  }
  if (sink < 0) throw new Error('unreachable');
  return { opsPerSecond: [...results].sort((a, b) => a - b)[Math.floor(rounds / 2)]! };
}
