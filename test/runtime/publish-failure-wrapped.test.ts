import { publishFailureReason } from '../../src/runtime/publish-failure';

/**
 * A refusal is classified by every error of its chain, not the outer wrapper's text alone
 * (attack3 of s25: with the @platformatic/kafka adapter, which passes the client's produce errors through
 * unchanged (adapters/platformatic.ts:127-130). @platformatic/kafka 2.12.1 reports a partition's
 * MESSAGE_TOO_LARGE as a ResponseError: an AggregateError (name 'AggregateError', message
 * "Received response with error while executing API Produce(v11)", code 'PLT_KFK_RESPONSE')
 * whose `errors` hold the ProtocolError (code 'PLT_KFK_PROTOCOL', apiId 'MESSAGE_TOO_LARGE',
 * apiCode 10, message "The request included a message larger than the max message size the
 * server will accept."). Shape taken from the installed client under Node 24:
 *   new ResponseError(0, 11, { '/topics/0/partitions/0': [10, null] }, {})  (dist/errors.js:165,
 *   thrown by dist/apis/producer/produce-v11.js:167; not retried by the client, canRetry false;
 *   after client retries of other errors wrapped once more in MultipleErrors, dist/clients/base/base.js:303).
 * publishFailureReason read only the outer error's name, message, type and code: 'other', so on
 * this client a copy too large was retried at the backoff forever, never trimmed, dead-lettered
 * or held, and the commit never passed the record).
 */
function platformaticResponseError(apiId: string, apiCode: number, message: string): Error {
  const inner = Object.assign(new Error(message), { code: 'PLT_KFK_PROTOCOL', apiId, apiCode, canRetry: false });
  class ResponseError extends AggregateError {
    code = 'PLT_KFK_RESPONSE';
  }
  return new ResponseError([inner], 'Received response with error while executing API Produce(v11)');
}

describe('a produce refusal from @platformatic/kafka', () => {
  it('is classified too-large when the broker refused the copy as too large', () => {
    const error = platformaticResponseError('MESSAGE_TOO_LARGE', 10, 'The request included a message larger than the max message size the server will accept.');
    expect(publishFailureReason(error)).toBe('too-large');
  });

  it('is classified not-authorized when the broker refused the topic, and too-large through a cause too', () => {
    expect(publishFailureReason(platformaticResponseError('TOPIC_AUTHORIZATION_FAILED', 29, 'Not authorized to access topics: [Topic authorization failed]'))).toBe('not-authorized');
    expect(publishFailureReason(new Error('send failed', { cause: Object.assign(new Error('MESSAGE_TOO_LARGE'), { type: 'MESSAGE_TOO_LARGE' }) }))).toBe('too-large');
  });

  it('stays other for an error whose chain loops or whose errors cannot be read', () => {
    const looping: Error & { cause?: unknown } = new Error('looping');
    looping.cause = looping;
    expect(publishFailureReason(looping)).toBe('other');
    const hostile = new Proxy(new Error('hostile'), { get: (target, key) => { if (key === 'errors') throw new Error('no'); return Reflect.get(target, key); } });
    expect(publishFailureReason(hostile)).toBe('other');
  });
});
