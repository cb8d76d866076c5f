import { DEFAULT_SCENARIO } from '../src/cli/simulate-command';
import { readScenario } from '../src/simulate/scenario';
import { simulate } from '../src/simulate/simulate';
import { ScratchProject } from './helpers/project';

const seed004 = readScenario(DEFAULT_SCENARIO);

describe.each(['unordered', 'park-by-key'] as const)('the seed 004 scenario with %s ordering (R19)', (ordering) => {
  let result: Awaited<ReturnType<typeof simulate>>;
  beforeAll(async () => {
    result = await simulate(seed004, ordering);
  });

  it('handles all five main-topic records at t=0 despite three failures', () => {
    expect(result.mainTopicDoneAt).toEqual([0, 0, 0, 0, 0]);
  });

  it('sends order-43 to the DLQ with attempt 1 and order-44 with attempt 3', () => {
    expect(result.deadLetters).toEqual([
      { label: 'order-43:created:bad-schema', attempt: 1, original: 'orders-0@3', error: 'schema invalid' },
      { label: 'order-44:created', attempt: 3, original: 'orders-0@4', error: 'payment-svc 503' },
    ]);
  });

  it('succeeds with order-42 created on its third attempt, at t=65s', () => {
    expect(result.timeline).toContain('t=  65s  orders.retry.1m  order-42:created attempt=3 OK');
    expect(result.timeline).toContain('t=   5s  orders.retry.5s  order-42:created attempt=2 FAIL payment-svc 503 -> orders.retry.1m (due 65s)');
  });
});

describe('ordering of order-42', () => {
  it("applies 'paid' before 'created' without parking", async () => {
    const { applied, keyOrder } = await simulate(seed004, 'unordered');
    expect(applied).toEqual(['order-41:created', 'order-42:paid', 'order-42:created']);
    expect(keyOrder).toEqual([{ key: 'order-42', produced: ['created', 'paid'], applied: ['paid', 'created'], kept: false }]);
  });

  it("applies 'paid' after 'created' with park-by-key, unparking it at t=65s", async () => {
    const { applied, keyOrder, timeline } = await simulate(seed004, 'park-by-key');
    expect(applied).toEqual(['order-41:created', 'order-42:created', 'order-42:paid']);
    expect(keyOrder[0]!.kept).toBe(true);
    expect(timeline).toContain('t=   0s  orders           order-42:paid PARK (key order-42 is in retry)');
    expect(timeline).toContain('t=  65s  parked           order-42:paid attempt=1 OK');
  });
});

describe('a scenario built in code', () => {
  it('is refused when a record is on a partition its topic does not have, before any broker call', async () => {
    const scenario = { ...seed004, records: [{ key: 'a', event: 'created', partition: 1 }] };
    await expect(simulate(scenario)).rejects.toThrow("records[0].partition: record a:created is on partition 1, but topic 'orders' has 1 partition (0)");
  });
});

describe('krt simulate', () => {
  const project = new ScratchProject(false);
  afterAll(() => project.remove());

  it('prints the timeline of the shipped scenario', async () => {
    const { code, stdout } = await project.krt('simulate', '--ordering', 'park-by-key');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ordering: park-by-key\n/);
    expect(stdout).toContain('order-42 order: kept (created then paid)');
    expect(stdout).toContain('main topic   : 5 records handled by 0s');
  });

  it('runs the shipped scenario with in-place-only ordering, which drops its ladder: no tiers, order kept, two records in the DLQ', async () => {
    const { code, stdout } = await project.krt('simulate', '--ordering', 'in-place-only');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ordering: in-place-only\n/);
    expect(stdout).not.toContain('.retry.');
    expect(stdout).toContain('applied order: order-41:created, order-42:created, order-42:paid');
    expect(stdout).toContain('order-42 order: kept (created then paid)');
    expect(stdout).toMatch(/DLQ +: order-43:created:bad-schema .*; order-44:created /);
  });

  it('names a spec problem of a scenario by its YAML path', async () => {
    project.write('ladder.yml', 'name: x\nconsumer: { topic: { name: orders, partitions: 1 }, ladder: [5s], ordering: in-place-only }\nrecords: [{ key: a, event: created }]\n');
    const { code, stderr } = await project.krt('simulate', 'ladder.yml');
    expect(code).toBe(1);
    expect(stderr).toContain("error consumer.ladder: ordering 'in-place-only' never uses retry tiers");
    project.write('records.yml', 'name: x\nconsumer: { topic: { name: orders, partitions: 1 } }\nrecords: [{ event: created }]\n');
    expect((await project.krt('simulate', 'records.yml')).stderr).toMatch(/is not valid: records\[0\]\.key:/);
  });

  it('refuses a record on a partition the topic does not have, naming the record, its partition and how many the topic has, with exit code 1', async () => {
    project.write('partition.yml', 'name: x\nconsumer: { topic: { name: orders, partitions: 1 } }\nrecords:\n  - { key: a, event: created }\n  - { key: b, event: paid, partition: 5 }\n');
    const { code, stderr } = await project.krt('simulate', 'partition.yml');
    expect(code).toBe(1);
    expect(stderr).toMatch(/scenario .*partition\.yml is not valid: records\[1\]\.partition: record b:paid is on partition 5, but topic 'orders' has 1 partition \(0\); use a partition from 0 to 0 or give the topic more partitions/);
    expect(stderr).not.toContain('does not host');
  });

  it('refuses an unknown ordering with exit code 2', async () => {
    const { code, stderr } = await project.krt('simulate', '--ordering', 'strict');
    expect(code).toBe(2);
    expect(stderr).toContain("unknown ordering 'strict'");
  });

  it('says a scenario file that is not there was named wrong, with exit code 2 as for a missing topology file', async () => {
    const { code, stderr } = await project.krt('simulate', 'missing.yml');
    expect(code).toBe(2);
    expect(stderr).toContain('no such scenario file: missing.yml');
  });

  it('explains an invalid scenario with exit code 1', async () => {
    project.write('bad.yml', 'name: x\nconsumer: { topic: { name: orders } }\nrecords: []\n');
    const { code, stderr } = await project.krt('simulate', 'bad.yml');
    expect(code).toBe(1);
    expect(stderr).toMatch(/scenario .*bad\.yml is not valid: consumer\.topic\.partitions/);
  });
});
