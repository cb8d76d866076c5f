import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import { FaultyPort } from '../../src/simulate/faulty-port';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { descriptorFor, T0 } from './fault-world';
import { httpError } from './harness';

/*
 * Class: background work left after stop() resolved (a timer that keeps the process alive).
 *
 * Scenario: unordered; one record fails on the main topic; its publish to the first tier is
 * refused once (send fails), so the publish loop waits its backoff (waitHeartbeating:
 * Promise.race([clock.sleep(slice), stopSignal])). stop() is called while that wait runs.
 *
 * Seen: stop() resolves, and a timer is still on the clock: the backoff's sleep, which the
 * race abandoned but nobody cancelled. On the system clock it is a live setTimeout (up to
 * HEARTBEAT_SLICE_MS, 1 s; group-commit.ts's read-again sleep leaves one of up to 250 ms the
 * same way): the process cannot exit until it fires, against stop()'s "no timer may keep the
 * process alive" (stop-leaves-no-timer.test.ts checks only after running the clock 60 s on).
 * Swept: stop() at every step 1..13 after a refused send (either client), 82 cases.
 *
 * Code at fault: src/runtime/retrying-consumer.ts waitUnlessStopped (clock.sleep in a race,
 * never cancelled); src/runtime/group-commit.ts groupCommitOf (same pattern).
 *
 * Class of bug: an abandoned timer (race without cancel).
 *
 * Fixed: both waits go through settlesWithin, which cancels its timer whichever way it ends.
 *
 * Suggested fix: use clock.setTimer and cancel it when stopSignal wins (or when the race
 * settles), as settlesWithin does.
 */
jest.setTimeout(60_000);

it('unordered: stop() during a publish backoff leaves no timer on the clock once it resolves', async () => {
  const consumer = descriptorFor('unordered');
  const clock = new VirtualClock(T0);
  const broker = new MemoryBroker(clock);
  broker.throwReaction = 'confluent';
  for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 2);
  const faulty = new FaultyPort(broker.port(), { faults: [{ operation: 'send', at: 0, times: 1 }] });
  broker.append(consumer.mainTopic, { key: Buffer.from('A'), value: Buffer.from('0'), partition: 0 });
  const retrying = createRetryingConsumer(consumer, {
    kafka: faulty.port(),
    clock,
    random: () => 0.5,
    commit: { intervalMs: 100, maxRecords: 4 },
    publishBackoff: { initialMs: 100, maxMs: 1_000 },
    handler: async (record) => {
      if (record.topic === consumer.mainTopic) throw httpError(503);
    },
  });
  await retrying.start();
  // Until the refused send: the publish now waits its backoff.
  await broker.run({ stopWhen: () => faulty.injected > 0 });
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  let done = false;
  const stopped = retrying.stop().finally(() => (done = true));
  for (let i = 0; i < 1_000 && !done; i++) {
    for (let j = 0; j < 20 && !done; j++) await new Promise((r) => setImmediate(r));
    if (!done) clock.advanceToNextTimer();
  }
  await stopped;
  // Seen: true (the backoff's sleep, abandoned by the race with stop()).
  expect(clock.hasTimers()).toBe(false);
});
