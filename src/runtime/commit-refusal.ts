/**
 * Whether a failed commit was answered "no" by the broker, so it was surely not stored (an
 * error response), rather than lost on the way (a connection error, a timeout: stored or not,
 * nobody knows). kafkajs names its error responses KafkaJSProtocolError, @platformatic/kafka
 * codes them PLT_KFK_PROTOCOL (inside a PLT_KFK_RESPONSE), and the Confluent adapter marks a
 * commit its confirming read did not show `notStored`. A timed-out append may still land.
 */
export function answeredNo(error: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (e: unknown): boolean => {
    if (e === null || typeof e !== 'object' || seen.has(e)) return false;
    seen.add(e);
    const { name, code, type, notStored, errors, cause } = e as { name?: unknown; code?: unknown; type?: unknown; notStored?: unknown; errors?: unknown; cause?: unknown };
    if (type === 'REQUEST_TIMED_OUT') return false;
    if (notStored === true || name === 'KafkaJSProtocolError' || code === 'PLT_KFK_PROTOCOL') return true;
    return (Array.isArray(errors) && errors.some(visit)) || visit(cause);
  };
  return visit(error);
}
