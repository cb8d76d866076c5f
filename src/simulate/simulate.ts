import { compileTopologies } from '../compile';
import { consumerDescriptor } from '../model/consumer-descriptor';
import { HEADERS } from '../naming/headers';
import type { OrderingStrategy } from '../spec/types';
import { decodeRetryHeaders } from '../runtime/headers';
import type { RetryEvent } from '../runtime/events';
import { createRetryingConsumer } from '../runtime/retrying-consumer';
import type { ConsumedRecord } from '../runtime/router';
import type { Diagnostic } from '../validate/diagnostic';
import { formatPath } from '../validate/zod-issues';
import { MemoryBroker } from './memory-broker';
import type { Scenario } from './scenario';
import { recordPartitionProblems, ScenarioError } from './scenario';
import { VirtualClock } from './virtual-clock';
import { DefectError } from '../runtime/krt-error';

export interface DeadLetter {
  readonly label: string;
  readonly attempt: number | undefined;
  readonly original: string;
  readonly error: string;
}

export interface SimulationResult {
  readonly ordering: OrderingStrategy;
  readonly timeline: readonly string[];
  /** Records the handler completed, in order, as `key:event`. */
  readonly applied: readonly string[];
  readonly deadLetters: readonly DeadLetter[];
  /** When the main consumer finished each main-topic record, ms of virtual time. */
  readonly mainTopicDoneAt: readonly number[];
  /** For each key with several events: whether they were applied in the order produced. */
  readonly keyOrder: readonly { key: string; produced: string[]; applied: string[]; kept: boolean }[];
}

/**
 * The scenario's consumer with the ordering asked for. An in-place-only consumer has no
 * ladder, so choosing that ordering drops the scenario's ladder rather than failing on it.
 */
function consumerUnder(scenario: Scenario, ordering: OrderingStrategy | undefined): Scenario['consumer'] {
  if (ordering === undefined) return scenario.consumer;
  const { ladder, ...rest } = scenario.consumer;
  return ordering === 'in-place-only' ? { ...rest, ordering } : { ...rest, ...(ladder ? { ladder } : {}), ordering };
}

/** A spec problem at the scenario's own YAML path: `consumer.ladder`, not `consumers[0].ladder`. */
function inScenarioTerms(d: Diagnostic): string {
  return `${d.severity} ${d.path.replace(/^consumers\[0\]/, 'consumer')}: ${d.message}`;
}

const labelOf = (record: ConsumedRecord) => `${record.message.key?.toString()}:${record.message.value?.toString()}`;
const seconds = (ms: number) => `t=${String(Math.round(ms / 1000)).padStart(4)}s`;

/** Runs the real retrying consumer on the in-memory broker with a virtual clock. */
export async function simulate(scenario: Scenario, ordering?: OrderingStrategy): Promise<SimulationResult> {
  const misplaced = recordPartitionProblems(scenario);
  if (misplaced.length > 0) throw new ScenarioError(`scenario ${scenario.name} is not valid: ${misplaced.map((p) => `${formatPath(p.path)}: ${p.message}`).join('; ')}`);
  const compiled = compileTopologies([
    {
      file: `scenario ${scenario.name}`,
      exported: {
        name: 'simulation',
        owner: { team: 'simulation', onCall: 'nobody' },
        runbookBaseUrl: 'https://runbooks.invalid',
        consumers: [{ name: 'simulated', principal: 'User:simulated', ...consumerUnder(scenario, ordering) }],
      },
    },
  ]);
  if (!compiled.model) throw new ScenarioError(compiled.diagnostics.map(inScenarioTerms).join('\n'));
  const descriptor = consumerDescriptor(compiled.model.topologies[0]!.consumers[0]!);

  const clock = new VirtualClock(0);
  const broker = new MemoryBroker(clock);
  const width = Math.max(...[descriptor.mainTopic, ...descriptor.tiers.map((t) => t.topic), descriptor.dlqTopic].map((t) => t.length));
  for (const topic of [descriptor.mainTopic, ...descriptor.tiers.map((t) => t.topic), descriptor.dlqTopic]) {
    broker.createTopic(topic, scenario.consumer.topic.partitions);
  }
  for (const r of scenario.records) {
    broker.append(descriptor.mainTopic, { key: Buffer.from(r.key), value: Buffer.from(r.event), partition: r.partition ?? 0 });
  }

  const calls = new Map<string, number>();
  const applied: string[] = [];
  const timeline: string[] = [];
  const mainTopicDoneAt: number[] = [];
  const line = (topic: string, text: string) => timeline.push(`${seconds(clock.now())}  ${topic.padEnd(width)}  ${text}`);

  const handler = async (record: ConsumedRecord) => {
    const label = labelOf(record);
    const spec = scenario.records.find((r) => `${r.key}:${r.event}` === label);
    const n = (calls.get(label) ?? 0) + 1;
    calls.set(label, n);
    if (spec?.fails && (spec.fails.times === 'always' || n <= spec.fails.times)) {
      const { name, message, status, code } = spec.fails.error;
      throw Object.assign(new Error(message), { name, ...(status !== undefined ? { status } : {}), ...(code ? { code } : {}), ...(name === 'ZodError' ? { issues: [] } : {}) });
    }
    applied.push(label);
  };

  const onEvent = (e: RetryEvent) => {
    if ('record' in e && e.record.topic === descriptor.mainTopic && (e.type === 'processed' || e.type === 'routed' || e.type === 'parked') && !(e.type === 'processed' && e.parked)) {
      mainTopicDoneAt.push(clock.now());
    }
    const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
    switch (e.type) {
      case 'processed':
        return line(e.parked ? 'parked' : e.record.topic, `${labelOf(e.record)} attempt=${e.attempt} OK`);
      case 'routed': {
        const to = e.destination.kind === 'tier' ? `${e.destination.tier.topic} (due ${seconds(e.destination.dueAt).slice(2).trim()})` : 'DLQ';
        return line(e.record.topic, `${labelOf(e.record)} attempt=${e.attempt} FAIL ${errorText(e.error)} -> ${to}`);
      }
      case 'failed-in-place':
        return line(e.record.topic, `${labelOf(e.record)} attempt=${e.attempt} FAIL ${errorText(e.error)}, retry in place in ${e.waitMs}ms`);
      case 'publish-failed':
        return line(e.record.topic, `${labelOf(e.record)} publish refused (${errorText(e.error)}), again in ${e.retryInMs}ms`);
      case 'waiting':
        return line(e.topic, `pause partition ${e.partition}, wait until ${seconds(e.dueAt).slice(2).trim()}`);
      case 'tier-log-recreated':
        return line(e.topic, `partition ${e.partition} holds another record at ${e.offset} than the one it waited for: the tier was created again, read from its start`);
      case 'parked':
        return line(e.record.topic, `${labelOf(e.record)} PARK (key ${e.key} is in retry)`);
      case 'unparked':
        return line('parked', `unpark ${labelOf(e.record)}`);
      case 'stale-tier-record':
        return line(e.record.topic, `${labelOf(e.record)} SKIP (a stale copy: key ${e.key} is no longer in this retry)`);
      case 'hold-expired':
        return line(e.topic, `release the key of offset ${e.offset} on partition ${e.partition}: its tier record can no longer arrive`);
      case 'park-state-lost':
        return line(e.topic, `partition ${e.partition}: no park-by-key state in its commit at ${e.offset} (${e.metadata === 'none' ? 'no metadata' : 'unreadable metadata'}): records from there run again, tier records from before it run`);
      case 'park-state-shed':
        return line(e.topic, `partition ${e.partition}: its stored state is over the ${e.budgetBytes} bytes the broker keeps now: shed, records ${e.offset} to ${e.rerunTo} run again, ${e.holdsDropped} keys in retry no longer held`);
      case 'parked-records-deleted':
        return line(e.topic, `partition ${e.partition}: parked records at ${e.offsets.join(', ')} were deleted before they were read again (nothing from ${e.from} to ${e.to}): they never run`);
      case 'parking-full':
        return line(e.topic, `pause partition ${e.partition}: ${e.keys} keys in retry fill its commit metadata`);
      case 'parking-budget-lowered':
        return line(e.topic, `the broker refused ${e.refusedBytes} bytes of state on partition ${e.partition}: every partition's state now stays within ${e.budgetBytes} bytes`);
      case 'publish-held':
        return line(e.record.topic, `${labelOf(e.record)} HELD (the DLQ refused even its trimmed copy as too large): its partition waits`);
      case 'parking-hold-skipped':
        return line(e.topic, `partition ${e.partition} cannot keep a hold in ${e.budgetBytes} bytes (needs ${e.neededBytes}): key ${e.key} (offset ${e.offset}) is not held, its newer records may run first`);
      case 'parking-budget-raised':
        return line(e.topic, `try the configured ${e.budgetBytes} bytes of state again (lowered to ${e.loweredBytes})`);
      case 'commit-failed':
        return line('commit', `refused (${errorText(e.error)}), again with the next commit`);
      default:
        return assertNever(e);
    }
  };

  const consumer = createRetryingConsumer(descriptor, { kafka: broker.port(), handler, clock, random: () => 0.5, onEvent });
  await consumer.start();
  await broker.run();
  await consumer.stop();

  const deadLetters = broker.records(descriptor.dlqTopic).map((r): DeadLetter => {
    const h = decodeRetryHeaders(r.headers);
    return {
      label: `${r.key?.toString()}:${r.value?.toString()}`,
      attempt: h.attempt,
      original: `${h.originalTopic}-${h.originalPartition}@${h.originalOffset}`,
      error: String(r.headers[HEADERS.errorMessage] ?? ''),
    };
  });
  return { ordering: descriptor.ordering, timeline, applied, deadLetters, mainTopicDoneAt, keyOrder: keyOrder(scenario, applied) };
}

function keyOrder(scenario: Scenario, applied: readonly string[]): SimulationResult['keyOrder'] {
  const keys = [...new Set(scenario.records.map((r) => r.key))];
  return keys.flatMap((key) => {
    const produced = scenario.records.filter((r) => r.key === key).map((r) => r.event);
    const done = applied.filter((label) => label.startsWith(`${key}:`)).map((label) => label.slice(key.length + 1));
    if (done.length < 2) return [];
    const expected = produced.filter((e) => done.includes(e));
    return [{ key, produced, applied: done, kept: expected.join('\u0000') === done.join('\u0000') }];
  });
}

/** The report `krt simulate` prints: the timeline, then what happened. */
export function formatSimulation(result: SimulationResult): string {
  const dlq = result.deadLetters.map((d) => `${d.label} [attempt=${d.attempt}, orig=${d.original}, error=${d.error}]`).join('; ') || 'empty';
  return [
    `ordering: ${result.ordering}`,
    ...result.timeline,
    `applied order: ${result.applied.join(', ')}`,
    `DLQ          : ${dlq}`,
    ...result.keyOrder.map((k) => `${k.key} order: ${k.kept ? 'kept' : 'REVERSED'} (${k.applied.join(' then ')})`),
    `main topic   : ${result.mainTopicDoneAt.length} records handled by ${seconds(Math.max(0, ...result.mainTopicDoneAt)).slice(2).trim()}`,
    '',
  ].join('\n');
}

function assertNever(event: never): never {
  throw new DefectError(`the simulator has no line for ${JSON.stringify(event)}`);
}
