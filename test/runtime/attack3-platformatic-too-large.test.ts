import { publishFailureReason } from '../../src/runtime/publish-failure';

/**
 * Attack (s25, attack3) on "a copy too large is not retried like an outage" (publish-failure.ts:27-34)
 * with the @platformatic/kafka adapter, which passes the client's produce errors through
 * unchanged (adapters/platformatic.ts:127-130). @platformatic/kafka 2.12.1 reports a partition's
 * MESSAGE_TOO_LARGE as a ResponseError: an AggregateError (name 'AggregateError', message
 * "Received response with error while executing API Produce(v11)", code 'PLT_KFK_RESPONSE')
 * whose `errors` hold the ProtocolError (code 'PLT_KFK_PROTOCOL', apiId 'MESSAGE_TOO_LARGE',
 * apiCode 10, message "The request included a message larger than the max message size the
 * server will accept."). Shape taken from the installed client under Node 24:
 *   new ResponseError(0, 11, { '/topics/0/partitions/0': [10, null] }, {})  (dist/errors.js:165,
 *   thrown by dist/apis/producer/produce-v11.js:167; not retried by the client, canRetry false;
 *   after client retries of other errors wrapped once more in MultipleErrors, dist/clients/base/base.js:303).
 * publishFailureReason reads only the outer error's name, message, type and code: 'other'.
 * On this client a copy too large is retried at the backoff forever, as before the fix: never
 * trimmed, never dead-lettered, never held with its event, the partition's later records run
 * and the commit never passes the record (every restart runs them again).
 */
function platformaticResponseError(apiId: string, apiCode: number, message: string): Error {
  const inner = Object.assign(new Error(message), { code: 'PLT_KFK_PROTOCOL', apiId, apiCode, canRetry: false });
  class ResponseError extends AggregateError {
    code = 'PLT_KFK_RESPONSE';
  }
  return new ResponseError([inner], 'Received response with error while executing API Produce(v11)');
}

describe('a produce refusal from @platformatic/kafka', () => {
  // Defect: publish-failure.ts:27-34 does not look into an aggregate's `errors` (nor at `apiId`).
  // Class: a client's error classified by the outer wrapper's text only; a missing partition is
  // caught before the send (checkPartitions), but a TOPIC_AUTHORIZATION_FAILED from this client is
  // likely missed the same way (not checked here).
  // Fix: classify an AggregateError (or anything with an `errors` array, and `cause`) by its
  // inner errors too, and read `apiId` beside `type` (TOO_LARGE_CODES already lists the ids);
  // a broker-side test with @platformatic/kafka beside the kafkajs one in test/kafka/copy-too-large.test.ts.
  it.failing('is classified too-large when the broker refused the copy as too large', () => {
    const error = platformaticResponseError('MESSAGE_TOO_LARGE', 10, 'The request included a message larger than the max message size the server will accept.');
    // Seen: 'other' (retried forever as an outage).
    expect(publishFailureReason(error)).toBe('too-large');
  });
});
