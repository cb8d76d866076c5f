import { decodeRetryHeaders } from '../runtime/headers';
import type { RawHeaders, RetryHeaders } from '../runtime/headers';
import { decodeOrigin } from '../runtime/record-origin';
import { decodeSpringDltHeaders, decodeSpringRetryTopicHeaders } from '../runtime/spring-headers';

/** Spring wraps every listener's error in this; the cause it names is the error to triage by. */
const SPRING_LISTENER_WRAPPER = 'org.springframework.kafka.listener.ListenerExecutionFailedException';

/**
 * The failure as whichever layout the record carries says it: our `x-error-*` first, then
 * `@RetryableTopic`'s `kafka_exception-*`, then the recoverer's `kafka_dlt-exception-*`.
 * Spring's class is the root cause's when Spring only names its listener wrapper.
 */
export function decodeFailure(headers: RawHeaders | undefined): { readonly errorClass?: string; readonly errorMessage?: string; readonly stack?: string } {
  const h = headers ?? {};
  const ours = decodeRetryHeaders(h);
  const spring = [decodeSpringRetryTopicHeaders(h), decodeSpringDltHeaders(h)].find((s) => s.exceptionFqcn !== undefined || s.exceptionMessage !== undefined);
  const springClass = spring?.exceptionFqcn === SPRING_LISTENER_WRAPPER ? (spring.exceptionCauseFqcn ?? spring.exceptionFqcn) : spring?.exceptionFqcn;
  return {
    errorClass: ours.errorClass ?? (springClass || undefined),
    errorMessage: ours.errorMessage ?? spring?.exceptionMessage,
    stack: spring?.stackTrace,
  };
}

/**
 * What a DLQ record says about its origin and failure, from whichever layout it carries
 * (the runtime's decodeOrigin for the origin, decodeFailure for the error). Every DLQ tool
 * reads records through this one function (inspect's grouping and --json, replay's route
 * and dry run, the audit entry), so a record Spring dead-lettered is described, routed and
 * refused exactly as one of ours.
 */
export function decodeDlqHeaders(headers: RawHeaders | undefined): RetryHeaders {
  const ours = decodeRetryHeaders(headers);
  const origin = decodeOrigin(headers);
  const failure = decodeFailure(headers);
  return {
    ...ours,
    originalTopic: origin?.topic,
    originalPartition: origin?.partition,
    originalOffset: origin?.offset,
    originalTimestamp: origin?.timestamp,
    errorClass: failure.errorClass,
    errorMessage: failure.errorMessage,
  };
}
