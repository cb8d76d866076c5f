import type { ConsumerDescriptor } from '../src/runtime';

/**
 * A consumer of the NestJS probes, named `name`, with one tier of no delay: the module's
 * consumers read the system clock, which broker.run() does not move.
 */
export const probeDescriptor = (name: string): ConsumerDescriptor => ({
  name,
  mainTopic: `${name}.main`,
  groups: { main: name, retry: `${name}.retry`, replay: `${name}.dlq-replay`, monitor: `${name}.dlq-monitor` },
  tiers: [{ index: 1, topic: `${name}.main.retry.0s`, delayMs: 0, label: '0s' }],
  dlqTopic: `${name}.main.dlq`,
  inPlace: { attempts: 1, backoffMs: 1, maxBackoffMs: 1, jitter: 0 },
  errorPolicy: { permanent: [], ambiguous: [], ambiguousTiers: 1 },
  ordering: 'unordered',
  headerStyle: 'x',
});
