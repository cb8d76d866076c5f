import { decodeRetryHeaders } from '../runtime/headers';
import type { RawHeaders, RetryHeaders } from '../runtime/headers';
import { decodeSpringDltHeaders, decodeSpringRetryTopicHeaders } from '../runtime/spring-headers';

/**
 * What a DLQ record says about its origin and failure, from whichever layout it carries:
 * this library's `x-*` headers first, then Spring's dead-letter headers
 * (`kafka_dlt-*`, DeadLetterPublishingRecoverer), then `@RetryableTopic`'s
 * (`kafka_original-*`). Every DLQ tool reads records through this one function (inspect's
 * grouping and --json, replay's route and dry run, the audit entry), so a record Spring
 * dead-lettered is described, routed and refused exactly as one of ours.
 */
export function decodeDlqHeaders(headers: RawHeaders | undefined): RetryHeaders {
  const ours = decodeRetryHeaders(headers);
  const h = headers ?? {};
  const spring = [decodeSpringDltHeaders(h), decodeSpringRetryTopicHeaders(h)].find((s) => s.originalTopic !== undefined || s.exceptionFqcn !== undefined);
  if (!spring) return ours;
  const partition = spring.originalPartition !== undefined && spring.originalPartition >= 0 ? spring.originalPartition : undefined;
  const offset = spring.originalOffset !== undefined && !spring.originalOffset.startsWith('-') ? spring.originalOffset : undefined;
  const timestamp = spring.originalTimestamp !== undefined && spring.originalTimestamp >= 0 ? spring.originalTimestamp : undefined;
  // The origin comes from one layout, never mixed: a record with x-original-topic is ours.
  const origin =
    ours.originalTopic !== undefined
      ? {}
      : {
          originalTopic: spring.originalTopic || undefined,
          originalPartition: partition,
          originalOffset: offset,
          originalTimestamp: timestamp,
        };
  return {
    ...ours,
    ...origin,
    errorClass: ours.errorClass ?? (spring.exceptionFqcn || undefined),
    errorMessage: ours.errorMessage ?? spring.exceptionMessage,
  };
}
