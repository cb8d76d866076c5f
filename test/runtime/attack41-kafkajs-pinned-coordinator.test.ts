import { KafkaJSProtocolError } from 'kafkajs';
import { consumer, hookConsumers, timedOn, world } from './park-by-key-world';

/*
 * Class: waiting out a refusal the client can only cure once the wait ends (stall; no duplicate saved).
 *
 * Scenario: park-by-key on kafkajs, one record (k:a) handled and committed, then the group's
 * coordinator moves (the broker leading its __consumer_offsets partition restarts). kafkajs
 * pins the coordinator: its OffsetManager is built at the group's sync with the coordinator
 * broker of that generation and getCoordinator() only reconnects to that same node
 * (node_modules/kafkajs/src/consumer/offsetManager/index.js getCoordinator; on
 * NOT_COORDINATOR_FOR_GROUP it refreshes the metadata, never the group's coordinator), and
 * ConsumerGroup.heartbeat goes to `this.coordinator`, also found only in join(). kafkajs cures
 * NOT_COORDINATOR_FOR_GROUP by rejoining (errors.js isRebalancing lists it; runner.js
 * rejoins when a fetch/eachMessage rejects with it), which it cannot do while eachMessage runs.
 * Modelled here: commits and heartbeats are refused with NOT_COORDINATOR_FOR_GROUP until an
 * eachMessage callback rejects (the rejoin finds the new coordinator). k:b is then produced.
 *
 * Seen (on d25af66): k:b's callback spends 26.3 s of simulated time re-sending a commit that
 * can never be accepted (every heartbeat also refused: on a real group the member's session at
 * the new coordinator runs out meanwhile), then fails; the rejoin follows and k:b runs again
 * anyway: 2 runs, as before the change, plus the 26 s stall. On d25af66^ the callback failed at
 * the first refusal, the client rejoined at once, k:b ran twice and the partition moved on
 * with no wait.
 *
 * Code at fault: src/runtime/commit-patience.ts COORDINATOR_AWAY includes kafkajs's
 * NOT_COORDINATOR_FOR_GROUP (and KafkaJSNumberOfRetriesExceeded around it, which someCause
 * walks into), and aliveAfterWait takes a heartbeat refused with it as "worth waiting";
 * the whitelist was checked against the protocol names, not against what kafkajs does next.
 *
 * Suggested fix: on kafkajs, do not wait out NOT_COORDINATOR_FOR_GROUP (nor a heartbeat
 * refused with it): throw at once so the runner rejoins (the adapter can tag it as it tags
 * CLIENT_STOPPED). GROUP_LOAD_IN_PROGRESS / GROUP_COORDINATOR_NOT_AVAILABLE from the same
 * coordinator, and the Confluent client (librdkafka re-queries the coordinator itself), may
 * still be waited out.
 *
 * Caused by the change (d25af66).
 *
 * Fixed: the kafkajs adapter does not mark NOT_COORDINATOR_FOR_GROUP (kafkajs-commit.ts
 * kafkajsCoordinatorAway), and a heartbeat refused so ends a wait (commit-patience.ts MUST_REJOIN).
 */
jest.setTimeout(60_000);

const notCoordinator = () => new KafkaJSProtocolError({ message: 'This is not the correct coordinator for this group', type: 'NOT_COORDINATOR_FOR_GROUP', code: 16, retriable: true } as unknown as string);

describe('park-by-key on kafkajs, the group coordinator moved', () => {
  it('does not hold the callback waiting on a coordinator kafkajs only finds again by rejoining', async () => {
    const w = world();
    let longest = 0;
    let stale = false;
    let rejoins = 0;
    hookConsumers(w, {
      commit: () => {
        if (stale) throw notCoordinator();
      },
      message: timedOn(w.clock, (ms) => (longest = Math.max(longest, ms)), async (payload, run) => {
        const heartbeat = async () => {
          if (stale) throw notCoordinator();
          await payload.heartbeat?.();
        };
        try {
          await run({ ...payload, heartbeat });
        } catch (error) {
          // kafkajs's runner: a rejection rejoins, which finds the new coordinator.
          if (stale) rejoins++;
          stale = false;
          throw error;
        }
      }),
    });
    w.broker.throwReaction = 'kafkajs';
    w.produce('k', 'a');
    const retrying = await w.start();
    await w.broker.run({ stopWhen: () => w.handled.length > 0 && w.broker.committedOffset(consumer.groups.main, consumer.mainTopic, 0) !== undefined });
    stale = true;
    w.produce('k', 'b');
    await w.broker.run();
    await retrying.stop();
    expect(rejoins).toBe(1);
    expect(w.handled.filter((h) => h === 'k:b').length).toBeGreaterThanOrEqual(1);
    // Seen: 26,300 ms (every wait of the patience, for nothing); d25af66^: 100 ms (the paced wait of the run again).
    expect(longest).toBeLessThan(5_000);
  });
});
