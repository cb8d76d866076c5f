import type { RoutedFailure } from './record-handler';

/**
 * Ends the publish of a tier record that is held (the DLQ refused even its trimmed copy)
 * instead of waiting inside it: the retry consumer's eachMessage slots are shared by every
 * tier partition, so the tier pipeline holds just the record's own partition (paused at the
 * record) and tries `failure` again after `retryInMs`, without running the handler again.
 */
export class PublishHeld extends Error {
  override name = 'KafkaRetryPublishHeld';
  constructor(
    readonly failure: RoutedFailure,
    readonly retryInMs: number,
  ) {
    super('the DLQ refused even the trimmed copy as too large: the record is held at its partition and tried again later');
  }
}
