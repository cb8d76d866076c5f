/**
 * The client matrix of the broker tests: every runtime test runs once per client here
 * (`eachClient`), the crash test once per client and ordering it carries.
 *
 * The rule for a client the running Node cannot load (stated once, here, and tested in
 * test/client-matrix.test.ts): its suites are still declared, as skipped suites whose
 * title says which Node they need, so jest's summary counts them and no run drops them
 * unseen. @platformatic/kafka needs Node 22 or newer, and jest can load it (an ES module)
 * only on Node 24.9 or newer, where jest's require() of ES modules runs with
 * `--experimental-vm-modules`. So below Node 24.9 its suites are skipped by this rule, and
 * on Node 24.9 or newer they run, and fail with the fix in one sentence when the flag is
 * missing: the Node 24 line of CI, which runs the broker suites, must pass it
 * (NODE_OPTIONS=--experimental-vm-modules).
 */
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import { confluentPort } from '../../src/runtime/adapters/confluent';
import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import { platformaticPort } from '../../src/runtime/adapters/platformatic';
import type { PlatformaticKafkaLike } from '../../src/runtime/adapters/platformatic';
import type { ConsumerDescriptor } from '../../src/runtime/descriptor';

type ConsumerOrdering = ConsumerDescriptor['ordering'];
import type { KafkaPort } from '../../src/runtime/port';
import { bootstrapServers, confluentKafka, kafkaAs } from '../helpers/kafka';

export type ClientName = 'kafkajs' | '@confluentinc/kafka-javascript' | '@platformatic/kafka';

export interface ClientUnderTest {
  readonly name: ClientName;
  /** The orderings its adapter carries (the others it refuses at construction). */
  readonly orderings: readonly ConsumerOrdering[];
  /** Why this process cannot run it, or undefined. */
  unavailable(node: NodeRuntime): string | undefined;
  /** The runtime's port over the client, as `user`; `consumerConfig` goes to every consumer (kafkajs's names). */
  port(user: string, consumerConfig?: Record<string, unknown>): KafkaPort;
}

export interface NodeRuntime {
  readonly version: string;
  /** Whether --experimental-vm-modules is on, with which jest (on Node 24.9+) can require() an ES module. */
  readonly vmModules: boolean;
}

export const thisNode = (): NodeRuntime => ({
  version: process.version,
  vmModules: /--experimental-vm-modules/.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`),
});

export const VM_MODULES_NEEDED =
  'jest loads @platformatic/kafka (an ES module) only with --experimental-vm-modules: run jest with NODE_OPTIONS=--experimental-vm-modules on Node 24';

function atLeast(version: string, major: number, minor: number): boolean {
  const [m = 0, n = 0] = version.replace(/^v/, '').split('.').map(Number);
  return m > major || (m === major && n >= minor);
}

/** The client module, loaded when a test first asks for it: Node 20 cannot parse it. */
function platformaticKafka(): PlatformaticKafkaLike {
  if (!thisNode().vmModules) throw new Error(VM_MODULES_NEEDED);
  return require('@platformatic/kafka') as PlatformaticKafkaLike;
}

export const CLIENTS: readonly ClientUnderTest[] = [
  {
    name: 'kafkajs',
    orderings: ['unordered', 'park-by-key'],
    unavailable: () => undefined,
    port: (user, consumerConfig) => kafkajsPort(kafkaAs(user), { consumerConfig }),
  },
  {
    name: '@confluentinc/kafka-javascript',
    orderings: ['unordered', 'park-by-key'],
    unavailable: () => undefined,
    port: (user, consumerConfig) => confluentPort(confluentKafka(user), { consumerConfig }),
  },
  {
    name: '@platformatic/kafka',
    // Its adapter refuses park-by-key (PLATFORMATIC_PARK_BY_KEY_UNSUPPORTED): no commit metadata.
    orderings: ['unordered'],
    unavailable: (node) => (atLeast(node.version, 24, 9) ? undefined : `jest loads it on Node 24.9 or newer only, this is Node ${node.version}`),
    port: (user, consumerConfig) =>
      platformaticPort(platformaticKafka(), {
        connection: { clientId: `krt-test-${user}`, bootstrapBrokers: bootstrapServers().split(','), sasl: { mechanism: 'PLAIN', username: user, password: passwordOf(user) } },
        consumerConfig,
      }),
  },
];

export function clientNamed(name: string): ClientUnderTest {
  const client = CLIENTS.find((c) => c.name === name);
  if (!client) throw new Error(`unknown client ${name}: one of ${CLIENTS.map((c) => c.name).join(', ')}`);
  return client;
}

export interface EachClientOptions {
  /** The user the clients authenticate as (the admin by default). */
  readonly user?: string;
  /** Goes to every consumer, in kafkajs's names (`sessionTimeout`, `heartbeatInterval`...). */
  readonly consumerConfig?: Record<string, unknown>;
  /** The clients to run (all by default). */
  readonly clients?: readonly ClientUnderTest[];
}

type ClientSuite = (port: () => KafkaPort, client: ClientUnderTest) => void;

/**
 * `describe.each` over the clients: `body` runs once per client, with its port factory.
 * A client this Node cannot run is declared as a skipped suite that says why.
 */
export function eachClient(title: string, body: ClientSuite): void;
export function eachClient(title: string, options: EachClientOptions, body: ClientSuite): void;
export function eachClient(title: string, optionsOrBody: EachClientOptions | ClientSuite, maybeBody?: ClientSuite): void {
  const [options, body] = typeof optionsOrBody === 'function' ? [{}, optionsOrBody] : [optionsOrBody, maybeBody!];
  const node = thisNode();
  for (const client of options.clients ?? CLIENTS) {
    const reason = client.unavailable(node);
    const port = () => client.port(options.user ?? ADMIN_USER, options.consumerConfig);
    if (reason === undefined) describe(`${title}, with ${client.name}`, () => body(port, client));
    else describe.skip(`${title}, with ${client.name} (not run: ${reason})`, () => body(port, client));
  }
}

/** `describe.each` over each client and each ordering it carries (the crash test's cases), with the same rule for a client this Node cannot run. */
export function eachClientOrdering(title: string, body: (client: ClientUnderTest, ordering: ConsumerOrdering) => void, clients: readonly ClientUnderTest[] = CLIENTS): void {
  const node = thisNode();
  for (const client of clients) {
    const reason = client.unavailable(node);
    for (const ordering of client.orderings) {
      const name = `${title}, with ${client.name}, ordering ${ordering}`;
      if (reason === undefined) describe(name, () => body(client, ordering));
      else describe.skip(`${name} (not run: ${reason})`, () => body(client, ordering));
    }
  }
}

/**
 * One test per client and ordering it carries, all in one describe block and run side by side
 * (jest runs at once only the concurrent tests of one block), `atOnce` at a time, with the
 * same rule for a client this Node cannot run: a skipped test that says why. For cases that
 * mostly wait (the crash test); five at once on two cores, with a loaded broker, let one
 * case's workers fall behind its deadlines.
 */
export function concurrentlyForEachClientOrdering(title: string, test: (client: ClientUnderTest, ordering: ConsumerOrdering) => Promise<void>, atOnce = 3): void {
  const node = thisNode();
  const slots = slotsOf(atOnce);
  describe(title, () => {
    for (const client of CLIENTS) {
      const reason = client.unavailable(node);
      for (const ordering of client.orderings) {
        const name = `with ${client.name}, ordering ${ordering}`;
        if (reason === undefined) it.concurrent(name, () => slots.run(() => test(client, ordering)));
        else it.skip(`${name} (not run: ${reason})`, () => test(client, ordering));
      }
    }
  });
}

/** At most `n` runs at once; the others wait for a slot, in the order they asked. */
function slotsOf(n: number): { run<T>(work: () => Promise<T>): Promise<T> } {
  let free = n;
  const waiting: (() => void)[] = [];
  return {
    async run(work) {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else free++;
      }
    },
  };
}
