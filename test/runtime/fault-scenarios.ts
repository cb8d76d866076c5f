import fc from 'fast-check';
import { PORT_OPERATIONS } from '../../src/simulate/faulty-port';
import type { Fault, StepEvent } from '../../src/simulate/faulty-port';
import { COMMIT_MAX_RECORDS, descriptorFor, faultWorld } from './fault-world';
import type { FaultWorldOptions, PlannedRecord } from './fault-world';

/**
 * What the fault properties draw from (faults.test.ts and its widened copies): records and
 * their keys, faults and events at fractions of a run, parking budgets; how a case's faults
 * are placed on a run's real length; and the duplicate bound they check.
 */

export const PARTITIONS = 2;
/** One hot key most of the time: its records park behind its retries and fill the partition's budget. */
export const keys = fc.oneof({ weight: 3, arbitrary: fc.constant('A') }, { weight: 2, arbitrary: fc.constantFrom('B', 'C', 'D') });
/** Mostly successes, some into a tier or two, a few into the DLQ. */
export const failures = fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }, { weight: 1, arbitrary: fc.constant(3) });
export const records = fc.array(
  fc.record({ key: keys, failures }).map(({ key, failures }): PlannedRecord => ({ key, partition: key.charCodeAt(0) % PARTITIONS, failures })),
  { minLength: 1, maxLength: 50 },
);
/** Commits fail more often than the rest: where a failure meets the parking budget, state is at stake. */
export const operation = fc.oneof({ weight: 1, arbitrary: fc.constant('commit' as const) }, { weight: 2, arbitrary: fc.constantFrom(...PORT_OPERATIONS) });
/**
 * Positions are fractions of the run's real length (its calls of the operation, its steps),
 * measured by a run without faults: a fault drawn past the end of a run injects nothing.
 * Uniform (no bias): fc.double draws most values within a hair of 0, which put nearly every
 * fault at a run's first steps.
 */
export const position = fc.noBias(fc.integer({ min: 0, max: 999_999 })).map((n) => n / 1_000_000);
/** One fault in four is refused with a non-retriable error (kafkajs stops a consumer such an error reaches). */
export const nonRetriable = fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });
export const fault = fc.record({ operation, at: position, times: fc.integer({ min: 1, max: 7 }), nonRetriable });
export const event = fc.record({ kind: fc.constantFrom('rebalance' as const, 'crash' as const), at: position });
/**
 * Park-by-key at its budget, on one partition: each hot key fails once into a tier, then its
 * `parked` records park behind it until the partition's state is full; the tail follows.
 */
export function atBudgetRecords(hot: readonly { key: string; parked: number }[], tail: readonly { key: string; failures: number }[]): PlannedRecord[] {
  return [
    ...hot.map(({ key }) => ({ key, partition: 0, failures: 1 })),
    ...hot.flatMap(({ key, parked }) => Array.from({ length: parked }, () => ({ key, partition: 0, failures: 0 }))),
    ...tail.map(({ key, failures }) => ({ key, partition: 0, failures })),
  ];
}

/** Budgets from tight (one or two keys fill a partition) to the default. */
export const budget = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 60, max: 160 }) }, { weight: 1, arbitrary: fc.integer({ min: 160, max: 400 }) }, { weight: 1, arbitrary: fc.constant(undefined) });

/**
 * The worst a crash, a failed operation or a rebalance may cost in records run twice
 * (docs/runtime.md, the duplicate bound): the records done and not yet committed, at most
 * maxRecords per consumer (a consumer waits while that many are uncommitted, those behind
 * unacknowledged publishes included), plus the record in hand on every main and tier partition.
 */
export function duplicateBound(options: FaultWorldOptions, incidents: number): number {
  const topics = 1 + descriptorFor(options.ordering).tiers.length;
  const consumers = options.ordering === 'park-by-key' ? 1 : 2;
  return incidents * (consumers * COMMIT_MAX_RECORDS + options.partitions * topics);
}

/** The result of a fault world's run. */
export type FaultRunResult = Awaited<ReturnType<ReturnType<typeof faultWorld>['run']>>;

/** Every incident of a run that may cost records run again. */
export const incidentsOf = (result: FaultRunResult) => result.crashes + result.injected + result.restarts + result.rebalances + result.statesLost + result.metadataLimitsLowered;

/**
 * What every fault property asks of a run: no consumer stopped for good, no record lost or run
 * early, no partition left paused, and duplicates within the bound per incident; under
 * park-by-key, each key in order. `order`: 'kept' asks it of every key; 'kept-but-where-lost'
 * excuses what a lost or shed state may cost (order for the keys it held or whose hold it
 * skipped, and the records it runs again); 'unchecked' leaves order to the caller.
 * Returns the incidents counted.
 */
export function expectEveryRecordsFate(options: FaultWorldOptions, result: FaultRunResult, order: 'kept' | 'kept-but-where-lost' | 'unchecked' = 'kept'): number {
  const incidents = incidentsOf(result);
  const excused = order === 'kept-but-where-lost';
  expect(result.stoppedForGood).toBe(0);
  expect(result.lost).toEqual([]);
  expect(result.early).toEqual([]);
  expect(result.paused).toEqual([]);
  if (order !== 'unchecked' && options.ordering === 'park-by-key') expect(result.outOfOrder.filter((v) => !excused || !result.lostKeys.has(v.split(':')[0]!))).toEqual([]);
  expect(result.duplicates).toBeLessThanOrEqual(duplicateBound(options, incidents) + (excused ? result.lossReruns : 0));
  return incidents;
}

/**
 * A case of dropped seeks (the client drops them without a word, Fault.dropped) with other
 * faults and events, all placed on the run's real length: the options to run it with.
 */
export async function withDroppedSeeks(
  base: FaultWorldOptions,
  dropped: readonly { at: number; times: number; keptUntilAssigned?: boolean }[],
  faults: readonly { operation: Fault['operation']; at: number; times: number; nonRetriable: boolean }[],
  events: readonly { kind: StepEvent['kind']; at: number }[],
): Promise<FaultWorldOptions> {
  const seeks = dropped.map((d) => ({ operation: 'seek' as const, at: d.at, times: d.times, nonRetriable: false }));
  const all = await placed(base, [...seeks, ...faults], events);
  return { ...base, faults: all.faults.map((f, i): Fault => (i < seeks.length ? { ...f, dropped: true, ...(dropped[i]!.keptUntilAssigned ? { keptUntilAssigned: true } : {}) } : f)), events: all.events };
}

/** A case's faults and events at their fractions of a run without faults of the same records. */
export async function placed(options: FaultWorldOptions, faults: readonly { operation: Fault['operation']; at: number; times: number; nonRetriable: boolean }[], events: readonly { kind: StepEvent['kind']; at: number }[]) {
  const dry = await faultWorld(options).run();
  return {
    faults: faults.map((f): Fault => ({ ...f, at: Math.floor(f.at * (dry.calls.get(f.operation) ?? 0)) })),
    events: events.map((e): StepEvent => ({ ...e, at: Math.floor(e.at * dry.steps) })),
  };
}
