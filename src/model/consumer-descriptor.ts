import type { ConsumerModel } from './types';
import type { ConsumerDescriptor } from '../runtime/descriptor';

/** The runtime's view of a consumer, taken from the model: what the router package ships. */
export function consumerDescriptor(c: ConsumerModel): ConsumerDescriptor {
  return {
    name: c.name,
    mainTopic: c.mainTopic.name,
    groups: { main: c.groups.main, retry: c.groups.retry, replay: c.groups.replay, monitor: c.groups.monitor },
    tiers: [...c.tiers, ...c.drainingTiers].map((t) => ({
      index: t.index,
      topic: t.name,
      delayMs: t.delayMs,
      label: t.label,
      ...(t.draining ? { draining: true as const } : {}),
    })),
    dlqTopic: c.dlq.name,
    dlqAuditTopic: c.dlqAudit.name,
    inPlace: { attempts: c.inPlace.attempts, backoffMs: c.inPlace.backoffMs, maxBackoffMs: c.inPlace.maxBackoffMs, jitter: c.inPlace.jitter },
    errorPolicy: { permanent: [...c.errorPolicy.permanent], ambiguous: [...c.errorPolicy.ambiguous], ambiguousTiers: c.errorPolicy.ambiguousTiers },
    ordering: c.ordering,
    headerStyle: c.headerStyle,
    ...(c.value ? { value: c.value } : {}),
  };
}
