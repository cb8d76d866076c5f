import { CLIENTS, VM_MODULES_NEEDED } from './kafka/clients';

/** Which clients' broker suites run on a Node, and why the others do not (test/kafka/clients.ts states the rule). */
const runsOn = (version: string) =>
  Object.fromEntries(CLIENTS.map((client) => [client.name, client.unavailable({ version, vmModules: true }) ?? 'runs']));

describe('the client matrix of the broker tests', () => {
  it('runs all three clients on Node 24, the line CI runs the broker suites on', () => {
    expect(runsOn('v24.22.3')).toEqual({ kafkajs: 'runs', '@confluentinc/kafka-javascript': 'runs', '@platformatic/kafka': 'runs' });
  });

  it('declares the @platformatic/kafka suites as skipped below Node 24.9, with the Node they need in their title', () => {
    for (const version of ['v20.19.2', 'v22.21.1', 'v24.8.0']) {
      expect(runsOn(version)).toEqual({ kafkajs: 'runs', '@confluentinc/kafka-javascript': 'runs', '@platformatic/kafka': `jest loads it on Node 24.9 or newer only, this is Node ${version}` });
    }
  });

  it('fails the @platformatic/kafka cases with the fix when Node 24 runs jest without --experimental-vm-modules', () => {
    const platformatic = CLIENTS.find((c) => c.name === '@platformatic/kafka')!;
    const flagged = /--experimental-vm-modules/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
    if (flagged) expect(() => platformatic.port('admin')).not.toThrow(VM_MODULES_NEEDED);
    else expect(() => platformatic.port('admin')).toThrow(VM_MODULES_NEEDED);
  });

  it('runs the crash test with kafkajs and the Confluent client in both orderings and @platformatic/kafka, which refuses park-by-key, unordered only', () => {
    expect(CLIENTS.map((c) => [c.name, c.orderings])).toEqual([
      ['kafkajs', ['unordered', 'park-by-key']],
      ['@confluentinc/kafka-javascript', ['unordered', 'park-by-key']],
      ['@platformatic/kafka', ['unordered']],
    ]);
  });
});
