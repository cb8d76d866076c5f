import { aConsumer, aTopology, compile, problems } from './helpers/specs';

const FILE = 'topologies/orders.ts';
const withConsumer = (overrides: Parameters<typeof aConsumer>[0]) => problems(compile(aTopology({ consumers: [aConsumer(overrides)] })));
const NOT_A_DURATION = "'1.5h' is not a duration: write a whole number followed by ms, s, m, h, d or w, e.g. '30s' or '10m'";

describe('a field that does not parse is reported alone, not with errors that only follow from its absence', () => {
  it('a malformed ladder entry does not make the ladder count as empty for park-by-key or ambiguousTiers', () => {
    expect(withConsumer({ ladder: ['1m', '10m', '1.5h'], ordering: 'park-by-key', errors: { ambiguousTiers: 2 } })).toEqual([
      `${FILE}: consumers[0].ladder[2]: ${NOT_A_DURATION}`,
    ]);
  });

  it('a misspelt ladder does not make the default ladder count against ambiguousTiers', () => {
    expect(withConsumer({ ladderr: ['1m', '2m', '3m', '4m'], errors: { ambiguousTiers: 4 } } as never)).toEqual([
      `${FILE}: consumers[0].ladderr: 'ladderr' is not a field here; did you mean 'ladder'? Rename it, or remove it`,
    ]);
  });

  it('a retryTopicBase that does not parse does not make the main topic name blamed for over-long generated names', () => {
    expect(withConsumer({ topic: { name: 'o'.repeat(240), partitions: 12 }, retryTopicBase: 'bad/base' })).toEqual([
      `${FILE}: consumers[0].retryTopicBase: 'bad/base' has characters Kafka does not allow in topic names; use only letters, digits, '.', '_' and '-'`,
    ]);
  });

  it("a topology's naming style that does not parse does not make its generated names collide with another topology's", () => {
    const spring = aTopology({ naming: 'sprnig', consumers: [aConsumer({ name: 'billing-a' })] });
    const plain = aTopology({ name: 'analytics', consumers: [aConsumer({ name: 'analytics-b' })] });
    expect(problems(compile(spring, plain))).toEqual([`${FILE}: naming: 'sprnig' is not a known naming style; use one of 'default', 'spring'`]);
  });

  it('still reports the rules of the fields that did parse', () => {
    expect(withConsumer({ ladder: ['1m', '1.5h'], dlq: { retention: '3d' } })).toEqual([
      `${FILE}: consumers[0].dlq.retention: a DLQ retention of 3d deletes dead letters before anyone can look at them; set it to at least 7d (R5), 28d is usual`,
      `${FILE}: consumers[0].ladder[1]: ${NOT_A_DURATION}`,
    ]);
  });
});

describe('a field that does not parse hides no rule of the fields that did', () => {
  it("a consumer's previousTopology is still checked when another of its fields does not parse", () => {
    expect(withConsumer({ criticality: 'bogus' as never, previousTopology: 'nowhere' })).toEqual([
      `${FILE}: consumers[0].criticality: 'bogus' is not a known criticality; use one of 'money', 'standard', 'analytics'`,
      expect.stringMatching(/previousTopology 'nowhere' is neither a topology nor the previousName of one/),
    ]);
  });

  it("a topology's previousName is still checked when another of its fields does not parse", () => {
    const renamed = aTopology({ owner: { team: '', onCall: '#x' }, previousName: 'orders', consumers: [aConsumer({})] });
    expect(problems(compile(renamed))).toEqual([expect.stringMatching(/owner\.team/), expect.stringMatching(/previousName 'orders'/)]);
  });
});
