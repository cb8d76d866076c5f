import { composeClassifiers, defaultClassifier, errorName, policyClassifier } from '../../src/runtime/classify';
import { billingDescriptor } from './descriptor';

const withProps = (name: string, props: Record<string, unknown> = {}) => Object.assign(new Error('boom'), { name }, props);
const classify = composeClassifiers(policyClassifier(billingDescriptor().errorPolicy), defaultClassifier);

describe('the default classifier (R7)', () => {
  it.each([
    ['a network reset', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'transient-short'],
    ['a connection timeout', Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }), 'transient-short'],
    ['an aborted request', withProps('AbortError'), 'transient-short'],
    ['a fetch timeout', withProps('TimeoutError'), 'transient-short'],
    ['a PostgreSQL deadlock 40P01', withProps('DatabaseError', { code: '40P01' }), 'transient-short'],
    ['a PostgreSQL serialization failure 40001', withProps('DatabaseError', { code: '40001' }), 'transient-short'],
    ['a downstream 503', withProps('HTTPError', { status: 503 }), 'transient-long'],
    ['a downstream 500 from axios', withProps('AxiosError', { response: { status: 500 } }), 'transient-long'],
    ['a 429 throttle', withProps('HTTPError', { statusCode: 429 }), 'transient-long'],
    ['an open circuit breaker (opossum)', Object.assign(new Error('Breaker is open'), { code: 'EOPENBREAKER' }), 'transient-long'],
    ['an open circuit breaker (cockatiel)', withProps('BrokenCircuitError'), 'transient-long'],
    ['a KafkaJS connection error', withProps('KafkaJSConnectionError'), 'transient-long'],
    ['a KafkaJS request timeout', withProps('KafkaJSRequestTimeoutError'), 'transient-long'],
    ['a zod error', withProps('ZodError', { issues: [] }), 'permanent-data'],
    ['a JSON SyntaxError', (() => { try { JSON.parse('{'); } catch (e) { return e; } })(), 'permanent-data'],
    ['a 400', withProps('HTTPError', { status: 400 }), 'permanent-data'],
    ['a 422', withProps('HTTPError', { status: 422 }), 'permanent-data'],
    ['a 401 from bad credentials', withProps('HTTPError', { status: 401 }), 'permanent-code'],
    ['a 403', withProps('HTTPError', { status: 403 }), 'permanent-code'],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'id')"), 'permanent-code'],
    ['a ReferenceError', new ReferenceError('x is not defined'), 'permanent-code'],
    ['a 404', withProps('HTTPError', { status: 404 }), 'ambiguous'],
    ['an entity-not-found error', withProps('EntityNotFoundError'), 'ambiguous'],
  ])('classifies %s as %s', (_what, error, kind) => {
    expect(classify(error)).toBe(kind);
  });

  it("honours the consumer's declared permanent and ambiguous errors first", () => {
    expect(classify(withProps('OrderValidationError'))).toBe('permanent-code');
    expect(classify(withProps('OrderNotFoundError'))).toBe('ambiguous');
    const declared = composeClassifiers(policyClassifier({ permanent: ['503', 'E_QUOTA'], ambiguous: [], ambiguousTiers: 0 }), defaultClassifier);
    expect(declared(withProps('HTTPError', { status: 503 }))).toBe('permanent-code');
    expect(declared(Object.assign(new Error('quota'), { code: 'E_QUOTA' }))).toBe('permanent-code');
  });

  it('lets a user classifier decide before the default table, and decline', () => {
    const custom = composeClassifiers((e) => (errorName(e) === 'TypeError' ? 'transient-long' : undefined), defaultClassifier);
    expect(custom(new TypeError('flaky SDK'))).toBe('transient-long');
    expect(custom(new SyntaxError('bad'))).toBe('permanent-data');
  });

  it('keeps a value the codec refused a deserialization failure, whatever a declared error or a user classifier says', () => {
    const refused = withProps('DeserializationError');
    const overruling = composeClassifiers(policyClassifier({ permanent: [], ambiguous: ['DeserializationError'], ambiguousTiers: 2 }), () => 'transient-long', defaultClassifier);
    expect(overruling(refused)).toBe('deserialization');
    expect(classify(refused)).toBe('deserialization');
  });

  it('sends an error nobody recognizes through the tiers, neither dropping nor retrying it forever', () => {
    expect(classify(new Error('something odd'))).toBe('transient-long');
    expect(classify('a thrown string')).toBe('transient-long');
    expect(classify(undefined)).toBe('transient-long');
  });
});
