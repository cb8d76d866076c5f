import { setTimeout as delay } from 'node:timers/promises';

/**
 * Retries what Kafka calls retriable (a group coordinator still loading after a broker
 * start or moving, a leader moving), which kafkajs's admin leaves to the caller for group
 * requests such as fetchOffsets and describeGroups. `signal` stops the retries: a command
 * whose other request failed ends, and disconnects, without this one going on behind it.
 */
export async function retryingRetriable<T>(request: () => Promise<T>, attempts = 20, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await request();
    } catch (error) {
      if (signal?.aborted || attempt >= attempts || !(error as { retriable?: boolean }).retriable) throw error;
      await delay(Math.min(2000, 100 * 2 ** attempt), undefined, signal ? { signal } : undefined);
    }
  }
}
