import { VirtualClock } from '../../src/simulate/virtual-clock';
import { drive, stallWatch, StallError } from './fault-budget';
import { faultWorld } from './fault-world';

describe('the stall budget of the fault harness', () => {
  it('fails a run whose signature stops changing once the step budget is spent, and not before', () => {
    const watch = stallWatch({ steps: 3, ms: 1_000 }, () => 0, () => 'the same', (why) => why);
    for (let step = 0; step < 3; step++) watch.check('faults on');
    expect(() => watch.check('faults on')).toThrow(StallError);
    expect(() => watch.check('faults on')).toThrow('faults on: 5 steps in a row without progress (budget 3; 5 steps in all)');
  });

  it('fails a run whose simulated time passes the budget without progress, however few its steps', () => {
    let now = 0;
    const watch = stallWatch({ steps: 100, ms: 1_000 }, () => now, () => 'the same', (why) => why);
    now = 1_001;
    expect(() => watch.check('stop()')).toThrow('stop(): 1001 ms of simulated time without progress (budget 1000 ms)');
  });

  it('never fails a run that keeps making progress', () => {
    let n = 0;
    const watch = stallWatch({ steps: 2, ms: 1_000 }, () => n * 100, () => String(n), (why) => why);
    for (n = 1; n < 1_000; n++) watch.check('faults on');
    expect(watch.longestIdle).toBe(0);
  });

  it('moves the clock while it waits for a start or a stop, so work that waits on a timer ends', async () => {
    const clock = new VirtualClock(0);
    const watch = stallWatch({ steps: 10, ms: 1_000_000 }, () => clock.now(), () => 'the same', (why) => why);
    await expect(drive(watch, clock, 'stop()', clock.sleep(60_000).then(() => 'stopped'))).resolves.toBe('stopped');
  });

  it('fails a wait that never ends within the budget, unless the process it waits on was killed meanwhile', async () => {
    const clock = new VirtualClock(0);
    const never = new Promise<void>(() => {});
    await expect(drive(stallWatch({ steps: 10, ms: 1_000 }, () => clock.now(), () => 'the same', (why) => why), clock, 'stop()', never)).rejects.toThrow('stop(): 11 steps in a row without progress');
    let killed = false;
    clock.setTimer(500, () => (killed = true));
    await expect(drive(stallWatch({ steps: 10, ms: 1_000 }, () => clock.now(), () => 'the same', (why) => why), clock, 'stop()', never, () => killed)).resolves.toBeUndefined();
  });

  it('reports a stalled world with the records that never reached their fate, the paused partitions, the commits and the case to replay', async () => {
    // A budget shorter than the first tier's delay: the wait for record 0's retry counts as a stall.
    const world = faultWorld({ ordering: 'park-by-key', reaction: 'kafkajs', partitions: 1, records: [{ key: 'A', partition: 0, failures: 1 }, { key: 'A', partition: 0, failures: 0 }], stallBudget: { steps: 1_000, ms: 1_000 } });
    const failure = await world.run().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StallError);
    const message = (failure as Error).message;
    expect(message).toMatch(/^the run stalled \(faults on: .* without progress/);
    expect(message).toContain('records that never reached their fate (2 of 2):');
    expect(message).toContain('record 0 (key A, partition 0, fails 1): tried at hops [0], tier copies [orders.confirmed.retry.1m-0@0]');
    expect(message).toContain('record 1 (key A, partition 0, fails 0): tried at hops [], tier copies []');
    // The tier partition resumed when the record came due, the step the budget ran out.
    expect(message).toContain('paused partitions: none');
    // Record 1 parked behind record 0's retry: the main commit is at it, with the key's state.
    expect(message).toMatch(/billing-order-confirmed orders\.confirmed-0: 1 of 2 \("krt-parked\/2 /);
    expect(message).toContain('replay: faultWorld({"ordering":"park-by-key"');
  });
});
