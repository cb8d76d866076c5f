import { compileTopologies } from '../src/compile';
import { defineTopology } from '../src/spec/define';
import { aConsumer, aTopology, compile, problems } from './helpers/specs';

const FILE = 'topologies/orders.ts';

describe('a valid spec', () => {
  it('compiles to a model with no diagnostics', () => {
    const result = compile(aTopology());
    expect(result.diagnostics).toEqual([]);
    expect(result.model?.topologies[0]?.consumers[0]?.tiers.map((t) => t.name)).toEqual([
      'orders.confirmed.retry.1m',
      'orders.confirmed.retry.10m',
      'orders.confirmed.retry.1h',
    ]);
  });
});

describe('validation of a single consumer', () => {
  const withConsumer = (overrides: Parameters<typeof aConsumer>[0]) => problems(compile(aTopology({ consumers: [aConsumer(overrides)] })));

  it('rejects an unparsable duration in the ladder, naming the tier', () => {
    expect(withConsumer({ ladder: ['1m', 'ten minutes'] })).toEqual([
      `${FILE}: consumers[0].ladder[1]: 'ten minutes' is not a duration: write a whole number followed by ms, s, m, h, d or w, e.g. '30s' or '10m'`,
    ]);
  });

  it('rejects a zero delay as not positive', () => {
    expect(withConsumer({ ladder: ['0s', '1m'] })).toEqual([
      `${FILE}: consumers[0].ladder[0]: '0s' must be longer than zero: write a whole number followed by ms, s, m, h, d or w, e.g. '30s' or '10m'`,
    ]);
  });

  it('rejects a ladder that goes down', () => {
    expect(withConsumer({ ladder: ['10m', '1m', '1h'] })).toEqual([
      `${FILE}: consumers[0].ladder[1]: tier 1m is shorter than the tier before it (10m); list the ladder's delays in strictly increasing order`,
    ]);
  });

  it('rejects a ladder that repeats a delay, even written differently', () => {
    expect(withConsumer({ ladder: ['1m', '60s'] })).toEqual([
      `${FILE}: consumers[0].ladder[1]: tier 1m repeats the delay of the tier before it; each tier needs its own, longer delay, so remove one`,
    ]);
  });

  it('rejects a tier with fewer partitions than the main topic (R4)', () => {
    expect(withConsumer({ ladder: ['1m', { delay: '10m', partitions: 6 }] })).toEqual([
      `${FILE}: consumers[0].ladder[1].partitions: tier 10m has 6 partitions, fewer than the 12 of orders.confirmed; give it at least 12 so a record keeps its partition (R4)`,
    ]);
  });

  it('rejects park-by-key tiers whose partitions differ from the main topic, more as well as fewer', () => {
    expect(withConsumer({ ordering: 'park-by-key', ladder: ['1m', { delay: '10m', partitions: 24 }] })).toEqual([
      `${FILE}: consumers[0].ladder[1].partitions: tier 10m has 24 partitions but orders.confirmed has 12; park-by-key needs them equal, so that one group member owns partition p of the main topic and of every tier (leave partitions out to take the main topic's)`,
    ]);
    expect(withConsumer({ ordering: 'unordered', ladder: ['1m', { delay: '10m', partitions: 24 }] })).toEqual([]);
  });

  it('rejects a DLQ with fewer partitions than the main topic (R4)', () => {
    expect(withConsumer({ dlq: { partitions: 3 } })).toEqual([
      `${FILE}: consumers[0].dlq.partitions: the DLQ has 3 partitions, fewer than the 12 of orders.confirmed; give it at least 12 so a replay lands on the record's partition (R4)`,
    ]);
  });

  it("rejects a tier whose retention would delete records around their due time", () => {
    expect(withConsumer({ ladder: ['1m', { delay: '1d', retention: '1d' }] })).toEqual([
      `${FILE}: consumers[0].ladder[1].retention: tier 1d keeps records 1d, which would delete them before or soon after they are due; set its retention to at least 2d (the delay plus one day)`,
    ]);
  });

  it('rejects a DLQ retention under seven days (R5)', () => {
    expect(withConsumer({ dlq: { retention: '3d' } })).toEqual([
      `${FILE}: consumers[0].dlq.retention: a DLQ retention of 3d deletes dead letters before anyone can look at them; set it to at least 7d (R5), 28d is usual`,
    ]);
  });

  it('rejects a main topic name with characters Kafka refuses', () => {
    expect(withConsumer({ topic: { name: 'orders/confirmed', partitions: 12 } })).toEqual([
      `${FILE}: consumers[0].topic.name: 'orders/confirmed' has characters Kafka does not allow in topic names; use only letters, digits, '.', '_' and '-'`,
    ]);
  });

  it('rejects a generated topic name longer than Kafka allows, pointing at the stem', () => {
    const longBase = `orders.${'x'.repeat(240)}`;
    const found = withConsumer({ retryTopicBase: longBase });
    expect(found).toHaveLength(5);
    expect(found[0]).toMatch(
      new RegExp(`^${FILE}: consumers\\[0\\]\\.retryTopicBase: the generated topic name is illegal: '.*' is 2\\d\\d characters long; Kafka allows at most 249, so shorten it \\(set a shorter retryTopicBase\\)$`),
    );
  });

  it('shows the end of each generated name that is too long, so you can tell which one it is', () => {
    const found = withConsumer({ retryTopicBase: `orders.${'x'.repeat(240)}` }).join('\n');
    for (const end of ['x.retry.1m', 'x.retry.10m', 'x.retry.1h', 'x.dlq', 'x.dlq.audit']) expect(found).toContain(`${end}' is`);
  });

  it('rejects a principal not written User:name', () => {
    expect(withConsumer({ principal: 'billing' })).toEqual([
      `${FILE}: consumers[0].principal: 'billing' is not a principal: write it as 'User:name', e.g. 'User:billing'`,
    ]);
  });

  it('rejects a wildcard principal', () => {
    expect(withConsumer({ principal: 'User:*' })).toHaveLength(1);
  });

  it('rejects an unknown criticality and lists the known ones', () => {
    expect(withConsumer({ criticality: 'critical' })).toEqual([
      `${FILE}: consumers[0].criticality: 'critical' is not a known criticality; use one of 'money', 'standard', 'analytics'`,
    ]);
  });

  it('rejects an unknown ordering strategy and lists the known ones', () => {
    expect(withConsumer({ ordering: 'strict' })).toEqual([
      `${FILE}: consumers[0].ordering: 'strict' is not a known ordering strategy; use one of 'unordered', 'park-by-key', 'in-place-only'`,
    ]);
  });

  it('rejects an unknown field, asking to check its spelling when nothing is close', () => {
    expect(withConsumer({ colour: 'blue' } as never)).toEqual([
      `${FILE}: consumers[0].colour: 'colour' is not a field here; remove it or check its spelling`,
    ]);
  });

  it('rejects a misspelt field instead of ignoring it', () => {
    expect(withConsumer({ critcality: 'money' } as never)).toEqual([
      `${FILE}: consumers[0].critcality: 'critcality' is not a field here; did you mean 'criticality'? Rename it, or remove it`,
    ]);
  });

  it('reports a value of the wrong type as wrong, not as missing', () => {
    expect(withConsumer({ topic: { name: 'orders.confirmed', partitions: '12' } })).toEqual([
      `${FILE}: consumers[0].topic.partitions: expected a number but found the string '12'; change the value`,
    ]);
  });

  it('keeps the schema\'s own message for a fractional whole number', () => {
    expect(withConsumer({ topic: { name: 'orders.confirmed', partitions: 12.5 } })).toEqual([
      `${FILE}: consumers[0].topic.partitions: partitions must be a whole number, not 12.5`,
    ]);
  });

  it('tells a delay written as milliseconds to use a unit, with the value to write', () => {
    expect(withConsumer({ ladder: [60000] })).toEqual([
      `${FILE}: consumers[0].ladder[0]: 60000 is a number, but a delay is written with its unit; write e.g. '1m'`,
    ]);
  });

  it('asks a tier object for its missing delay', () => {
    expect(withConsumer({ ladder: ['1m', { partitions: 12 }] })).toEqual([
      `${FILE}: consumers[0].ladder[1].delay: this field is required; add it (expected a string)`,
    ]);
  });

  it('names an error name of the wrong type as such, not as a duration', () => {
    expect(withConsumer({ errors: { permanent: [true] } })).toEqual([
      `${FILE}: consumers[0].errors.permanent[0]: 'true' is not an error name or code; write the error's name, e.g. 'OrderValidationError', or its code, e.g. 422`,
    ]);
  });

  it('proposes the field a misspelt one was meant to be', () => {
    expect(withConsumer({ retryTopicBse: 'orders.confirmed.billing' } as never)).toEqual([
      `${FILE}: consumers[0].retryTopicBse: 'retryTopicBse' is not a field here; did you mean 'retryTopicBase'? Rename it, or remove it`,
    ]);
  });

  it('rejects a park-by-key consumer without retry tiers', () => {
    expect(withConsumer({ ordering: 'park-by-key', ladder: [] })).toEqual([
      `${FILE}: consumers[0].ladder: ordering 'park-by-key' parks a key while its record waits in a retry tier, but the ladder is empty; add tiers, e.g. ladder: ['1m', '10m', '1h'], or choose ordering 'in-place-only'`,
    ]);
  });

  it('rejects an in-place backoff that would block the partition past the session timeout (R7)', () => {
    expect(withConsumer({ inPlace: { attempts: 3, maxBackoff: '2d' } })).toEqual([
      `${FILE}: consumers[0].inPlace.maxBackoff: a maxBackoff of 2d lets one in-place wait block the partition that long; in-place backoff must stay short (R7) and within the consumer's 30s session timeout, so set maxBackoff to at most '30s' and leave longer waits to the ladder`,
    ]);
    expect(withConsumer({ inPlace: { attempts: 4, backoff: '5s', maxBackoff: '20s' } })).toEqual([
      `${FILE}: consumers[0].inPlace.maxBackoff: with 4 attempts and a maxBackoff of 20s, one record could block its partition for 35s in all; in-place backoff must stay short (R7) and within the consumer's 30s session timeout, so lower maxBackoff to e.g. '15s' and leave longer waits to the ladder`,
    ]);
    expect(withConsumer({ inPlace: { attempts: 5, backoff: '10s', maxBackoff: '30s' } })).toEqual([
      `${FILE}: consumers[0].inPlace.maxBackoff: with 5 attempts and a maxBackoff of 30s, one record could block its partition for 90s in all; in-place backoff must stay short (R7) and within the consumer's 30s session timeout, so lower attempts to at most 3 and leave longer waits to the ladder`,
    ]);
    expect(withConsumer({ inPlace: { attempts: 3, backoff: '10s', maxBackoff: '20s' } })).toEqual([]);
  });

  it('rejects an audit log that would forget replays and discards before the DLQ forgets the records (R17)', () => {
    expect(withConsumer({ dlq: { retention: '28d', auditRetention: '7d' } })).toEqual([
      `${FILE}: consumers[0].dlq.auditRetention: the audit log keeps records 7d, less than the DLQ's 28d, so the record of who replayed or discarded a dead letter would vanish before the dead letter itself (R17); set auditRetention to at least 28d`,
    ]);
  });

  it.each(['dlqNewMessages', 'dlqBacklog'])('rejects a %s threshold of 0, which would fire forever', (alert) => {
    expect(withConsumer({ alerts: { [alert]: { threshold: 0 } } })).toEqual([
      `${FILE}: consumers[0].alerts.${alert}.threshold: this alert fires at or above its threshold of DLQ records, so 0 would fire with an empty DLQ, forever; use at least 1 (1 pages on the first record)`,
    ]);
  });

  it('warns that topic.config of a topic not managed here is ignored', () => {
    const result = compile(aTopology({ consumers: [aConsumer({ topic: { name: 'orders.confirmed', partitions: 12, config: { 'cleanup.policy': 'compact' } } })] }));
    expect(problems(result)).toEqual([]);
    expect(problems(result, 'warning')).toEqual([
      `${FILE}: consumers[0].topic.config: topic.config is applied only to a topic created here, but orders.confirmed is not managed here, so it is ignored; set it where the topic is created, or set topic.managed: true`,
    ]);
  });

  it('asks for a missing required field', () => {
    expect(withConsumer({ principal: undefined })).toEqual([
      `${FILE}: consumers[0].principal: this field is required; add it (expected a string)`,
    ]);
  });

  it('rejects a ladder with in-place-only ordering', () => {
    expect(withConsumer({ ordering: 'in-place-only' })).toEqual([
      `${FILE}: consumers[0].ladder: ordering 'in-place-only' never uses retry tiers, yet the ladder has 3; remove the ladder or choose ordering 'unordered' or 'park-by-key'`,
    ]);
  });

  it('gives in-place-only ordering no tiers by default', () => {
    const result = compile(aTopology({ consumers: [aConsumer({ ordering: 'in-place-only', ladder: undefined })] }));
    expect(result.diagnostics).toEqual([]);
    expect(result.model?.topologies[0]?.consumers[0]?.tiers).toEqual([]);
  });

  it('rejects more ambiguous tiers than the ladder has', () => {
    expect(withConsumer({ ladder: ['1m'], errors: { ambiguousTiers: 2 } })).toEqual([
      `${FILE}: consumers[0].errors.ambiguousTiers: ambiguous errors get 2 tiers but the ladder has only 1; lower ambiguousTiers to at most 1`,
    ]);
  });

  it('rejects an error listed as both permanent and ambiguous', () => {
    expect(withConsumer({ errors: { permanent: ['NotFound'], ambiguous: ['NotFound'] } })).toEqual([
      `${FILE}: consumers[0].errors.ambiguous: 'NotFound' is listed both as permanent and as ambiguous; keep it in one list`,
    ]);
  });

  it('rejects an in-place backoff above its cap', () => {
    expect(withConsumer({ inPlace: { backoff: '5s', maxBackoff: '1s' } })).toEqual([
      `${FILE}: consumers[0].inPlace.backoff: the first backoff 5s is longer than its cap 1s; raise maxBackoff or lower backoff`,
    ]);
  });

  it('rejects an oldest-message alert that could only fire after retention deleted the record', () => {
    expect(withConsumer({ alerts: { dlqOldestMessageAge: { threshold: 1.5 } } })).toEqual([
      `${FILE}: consumers[0].alerts.dlqOldestMessageAge.threshold: this threshold is a share of the DLQ retention and must be below 1 to fire before records are deleted; use e.g. 0.5`,
    ]);
  });
});

describe('validation of a topology', () => {
  it('says what the default export is when it is not a topology, e.g. the function itself', () => {
    expect(problems(compileTopologies([{ file: FILE, exported: defineTopology }]))).toEqual([
      `${FILE}: : the default export is a function, not a topology; call it: \`export default defineTopology({ ... })\``,
    ]);
  });

  it('says once that a team cannot be empty, without repeating the path', () => {
    expect(problems(compile(aTopology({ owner: { team: ' ', onCall: '#billing-oncall' } })))).toEqual([
      `${FILE}: owner.team: cannot be empty; write e.g. the owning team, 'billing'`,
    ]);
  });

  it.each(['https://runbooks.example.com/kafka?ref=main', 'https://runbooks.example.com/kafka#top'])(
    'rejects a runbook base URL with a query or fragment (%s), proposing it without',
    (url) => {
      expect(problems(compile(aTopology({ runbookBaseUrl: url })))).toEqual([
        `${FILE}: runbookBaseUrl: '${url}' has a query or fragment, so the runbook links appended to it would break; use 'https://runbooks.example.com/kafka'`,
      ]);
    },
  );

  it('rejects min.insync.replicas above the replication factor', () => {
    expect(problems(compile(aTopology({ cluster: { replicationFactor: 2, minInsyncReplicas: 3 } })))).toEqual([
      `${FILE}: cluster.minInsyncReplicas: min.insync.replicas 3 is above the replication factor 2, so no write could succeed with acks=-1; lower it to at most 2`,
    ]);
  });

  it('rejects a runbook base URL that is not http(s)', () => {
    expect(problems(compile(aTopology({ runbookBaseUrl: 'runbooks/kafka' })))).toEqual([
      `${FILE}: runbookBaseUrl: 'runbooks/kafka' is not an http(s) URL; give the address where the runbooks are hosted, e.g. 'https://github.com/acme/kafka/blob/main/generated/runbooks'`,
    ]);
  });

  it('rejects a topology without consumers', () => {
    expect(problems(compile(aTopology({ consumers: [] })))).toEqual([
      `${FILE}: consumers: a topology needs at least one consumer; add one to consumers`,
    ]);
  });

  it('rejects two consumers with the same name, proposing a name not in use', () => {
    const twice = aTopology({ consumers: [aConsumer(), aConsumer({ group: 'other', retryTopicBase: 'orders.confirmed.other' })] });
    expect(problems(compile(twice))).toEqual([
      `${FILE}: consumers[1].name: consumer 'billing-order-confirmed' is already defined at ${FILE} consumers[0]; consumer names label metrics and runbooks, so give this one another name, e.g. 'billing-order-confirmed-2'`,
    ]);
  });

  it('never proposes a retry stem or group that is itself taken', () => {
    const twice = aTopology({ consumers: [aConsumer(), aConsumer()] });
    const found = problems(compile(twice)).join('\n');
    expect(found).toContain("retryTopicBase: 'orders.confirmed.billing-order-confirmed'");
    expect(found).toContain("retryTopicBase: 'orders.confirmed.billing-order-confirmed-2'");
    const sharedGroup = aTopology({ consumers: [aConsumer({ name: 'a', group: 'b', retryTopicBase: 'x' }), aConsumer({ name: 'b', group: 'b', retryTopicBase: 'y' })] });
    expect(problems(compile(sharedGroup))).toEqual([
      "topologies/orders.ts: consumers[1].group: consumer group 'b' (group of 'b') is also the group of consumer 'a' (topologies/orders.ts consumers[0]); a group keeps one consumer's offsets, so give 'b' its own group, e.g. group: 'b-2'",
    ]);
  });
});

describe('names that collide across consumers and files (R2)', () => {
  const analytics = (overrides: Parameters<typeof aConsumer>[0] = {}) =>
    aTopology({
      name: 'analytics',
      consumers: [aConsumer({ name: 'analytics-orders', principal: 'User:analytics', ladder: ['5s', '1m'], ...overrides })],
    });

  it('rejects retry and DLQ topics generated for two consumers of one topic, proposing a stem to each', () => {
    expect(problems(compile(aTopology(), analytics()))).toEqual([
      "topologies/analytics.ts: consumers[0].retryTopicBase: topics 'orders.confirmed.retry.1m', 'orders.confirmed.dlq', 'orders.confirmed.dlq.audit' of consumer 'analytics-orders' are also generated for consumer 'billing-order-confirmed' (topologies/orders.ts consumers[0]); retry and DLQ topics belong to one consumer (R2), so give one of them its own stem, e.g. here retryTopicBase: 'orders.confirmed.analytics-orders'",
      "topologies/orders.ts: consumers[0].retryTopicBase: topics 'orders.confirmed.retry.1m', 'orders.confirmed.dlq', 'orders.confirmed.dlq.audit' of consumer 'billing-order-confirmed' are also generated for consumer 'analytics-orders' (topologies/analytics.ts consumers[0]); retry and DLQ topics belong to one consumer (R2), so give one of them its own stem, e.g. here retryTopicBase: 'orders.confirmed.billing-order-confirmed'",
    ]);
  });

  it("rejects a consumer whose retry topic is its own main topic", () => {
    expect(problems(compile(aTopology({ consumers: [aConsumer({ topic: { name: 'orders.retry.1m', partitions: 12 }, retryTopicBase: 'orders' })] })))).toEqual([
      "topologies/orders.ts: consumers[0].retryTopicBase: topic 'orders.retry.1m' is both the main topic and a retry or DLQ topic of consumer 'billing-order-confirmed'; set retryTopicBase to e.g. 'orders.retry.1m.billing-order-confirmed'",
    ]);
  });

  it('reports a misspelt retryTopicBase alone, not the collisions that only follow from it', () => {
    expect(problems(compile(aTopology(), analytics({ retryTopicBse: 'orders.confirmed.analytics-orders' } as never)))).toEqual([
      "topologies/analytics.ts: consumers[0].retryTopicBse: 'retryTopicBse' is not a field here; did you mean 'retryTopicBase'? Rename it, or remove it",
    ]);
  });

  it('accepts the fix it proposes', () => {
    expect(compile(aTopology(), analytics({ retryTopicBase: 'orders.confirmed.analytics-orders' })).diagnostics).toEqual([]);
  });

  it('rejects a consumer group shared by two consumers', () => {
    const found = problems(compile(aTopology(), analytics({ retryTopicBase: 'orders.confirmed.analytics-orders', group: 'billing-order-confirmed' })));
    expect(found).toEqual([
      "topologies/analytics.ts: consumers[0].group: consumer group 'billing-order-confirmed' (group of 'analytics-orders') is also the group of consumer 'billing-order-confirmed' (topologies/orders.ts consumers[0]); a group keeps one consumer's offsets, so give 'analytics-orders' its own group, e.g. group: 'analytics-orders'",
    ]);
  });

  it('rejects a main topic that two topologies both create', () => {
    const managed = { name: 'orders.confirmed', partitions: 12, managed: true };
    const found = problems(
      compile(aTopology({ consumers: [aConsumer({ topic: managed })] }), analytics({ topic: managed, retryTopicBase: 'orders.confirmed.analytics-orders' })),
    );
    expect(found).toEqual([
      "topologies/analytics.ts: consumers[0].topic.managed: 'orders.confirmed' is already managed by consumer 'billing-order-confirmed' (topologies/orders.ts consumers[0]); only one topology may create a topic, so set managed: false here",
    ]);
  });

  it('rejects consumers that disagree on the partitions of their main topic', () => {
    const found = problems(
      compile(aTopology(), analytics({ topic: { name: 'orders.confirmed', partitions: 6 }, retryTopicBase: 'orders.confirmed.analytics-orders' })),
    );
    expect(found).toEqual([
      "topologies/analytics.ts: consumers[0].topic.partitions: 'orders.confirmed' has 6 partitions here but 12 for consumer 'billing-order-confirmed' (topologies/orders.ts consumers[0]); give the topic's real partition count in both",
    ]);
  });

  it("warns, without failing, about topics that differ only by '.' and '_'", () => {
    const result = compile(aTopology(), analytics({ topic: { name: 'orders_confirmed', partitions: 12 } }));
    expect(problems(result)).toEqual([]);
    expect(problems(result, 'warning')).toEqual(
      ['orders.confirmed', 'orders.confirmed.dlq', 'orders.confirmed.retry.1m'].map(
        (topic) =>
          `topologies/analytics.ts: consumers[0]: topics '${topic}' and '${topic.replace('.', '_')}' differ only in '.' and '_', which collide in Kafka's metric names; consider renaming one`,
      ),
    );
    expect(result.model).toBeDefined();
  });
});

describe('reporting', () => {
  it('reports every problem of a spec at once, in order of the file', () => {
    const result = compile(
      aTopology({
        runbookBaseUrl: 'nope',
        consumers: [
          aConsumer({ principal: 'billing' }),
          aConsumer({ name: 'second', group: 'shared', ladder: ['1h', '1m'], dlq: { retention: '1d' }, retryTopicBase: 'orders.second' }),
          aConsumer({ name: 'third', group: 'shared', retryTopicBase: 'orders.third' }),
        ],
      }),
    );
    expect(result.model).toBeUndefined();
    expect(result.diagnostics.map((d) => d.path)).toEqual([
      'consumers[0].principal',
      'consumers[1].dlq.retention',
      'consumers[1].ladder[1]',
      'consumers[2].group',
      'runbookBaseUrl',
    ]);
  });
});
