/**
 * A client's connect and run still under way, for its disconnect to wait for. A disconnect
 * that comes during either is undone by the client: kafkajs's consumer still joining is
 * not stopped (its runner starts fetching after the join, a member nothing can leave),
 * and the Confluent client's connect answering after a disconnect throws from its ready
 * callback and ends the process. So the disconnect waits for them to settle, then leaves.
 */
export interface StepsUnderWay {
  /** Returns `step`, remembered until it settles. */
  track<T>(step: Promise<T>): Promise<T>;
  /** Resolves once every step tracked so far has settled, however. */
  settled(): Promise<void>;
}

export function stepsUnderWay(): StepsUnderWay {
  let underWay: Promise<unknown> = Promise.resolve();
  return {
    track(step) {
      underWay = Promise.allSettled([underWay, step]);
      return step;
    },
    async settled() {
      await underWay;
    },
  };
}
