/**
 * Retries what Kafka calls retriable (a group coordinator still loading after a broker
 * start or moving, a leader moving), which kafkajs's admin leaves to the caller for group
 * requests such as fetchOffsets and describeGroups.
 */
export async function retryingRetriable<T>(request: () => Promise<T>, attempts = 20): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      if (attempt >= attempts || !(error as { retriable?: boolean }).retriable) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 100 * 2 ** attempt)));
    }
  }
}
