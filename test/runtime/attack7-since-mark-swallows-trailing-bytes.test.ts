import type { OffsetCommit } from '../../src/runtime/port';
import type { StepEvent } from '../../src/simulate/faulty-port';
import { BrokerRefusedError } from '../../src/simulate/memory-broker';
import type { MemoryBroker } from '../../src/simulate/memory-broker';
import { faultWorld } from './fault-world';
import { consumer, T0, world } from './park-by-key-world';

/**
 * DEFECT (attack7, found by the fault property: KRT_PROPERTY_RUNS=3000 KRT_PROPERTY_SEED=7007,
 * "park-by-key whose committed state is lost at any step", case 314): a state whose metadata
 * ends with the `since` mark (`!t`, every state of a group that began it, when nothing is
 * held or parked) reads a trailing byte as part of the mark. `krt-parked/1 +0 !lfls` plus
 * a trailing `0` is `krt-parked/1 +0 !lfls0`: what the encoder writes for since = 36 x the
 * true moment plus 0, a valid state, not a lost one. No `park-state-lost`, and p now "began"
 * in the far future (real epoch ms: year ~3900): every tier record is stamped before it, so
 * every stale copy runs (over newer records of its key), and the state commits the wrong mark
 * again with each record, for good.
 *
 * Scenario: p's state begins (mark committed); the group's commit of p comes back with a
 * trailing byte (the reading the NUL fix was about; docs/runtime.md lists trailing bytes as
 * a loss); the group rebalances. k:a fails and the commit of its hold is refused once: k:a is
 * read again and succeeds, k:b runs; k:a's first tier copy, a stale one, runs after k:b.
 *
 * Code: src/runtime/park-state.ts parseParkState: `SINCE = /^!([0-9a-z]{1,11})$/` takes any
 * digits, and the encode-back check cannot catch them (nothing else in the state depends on
 * `since`); the mark is the last token whenever the state has no entry.
 *
 * Class: a free-form last field that absorbs trailing garbage: the "decode(x) encodes back to
 * x or is lost" guard only protects fields that other fields constrain.
 *
 * Fix I'd make: refuse a `since` later than the loading member's now (a state cannot have
 * begun in the future; a damaged mark then reads as lost, `lostBefore` at the commit), and
 * make the encoding self-delimiting (a fixed end token, or the mark before `+d`) so that no
 * trailing byte extends a field.
 */
function refuseOnce(broker: MemoryBroker, matches: (offset: OffsetCommit) => boolean): void {
  const commit = broker.commit.bind(broker);
  let refused = false;
  broker.commit = (groupId, offsets) => {
    if (!refused && offsets.some(matches)) {
      refused = true;
      throw new BrokerRefusedError('The coordinator is not available');
    }
    commit(groupId, offsets);
  };
}

describe('attack7: a park-by-key state ending with its since mark, read back with a trailing byte', () => {
  it.failing('reads as lost, and a stale tier copy is not run over a newer record of its key', async () => {
    const w = world();
    w.broker.throwReaction = 'kafkajs'; // a refused commit: the record is delivered again
    w.produce('w', '0');
    const retrying = await w.start();
    await w.broker.run({ until: T0 });
    expect(w.broker.committedMetadata(consumer.groups.main, consumer.mainTopic, 0)).toBe(`krt-parked/1 +0 !${T0.toString(36)}\0`);

    w.loseState('trailing bytes'); // `krt-parked/1 +0 !lfls0`
    w.broker.rebalance(consumer.groups.main);
    w.failOnce.add('k:a');
    refuseOnce(w.broker, (o) => o.topic === consumer.mainTopic && (o.metadata ?? '').includes('@')); // the commit of k's hold
    w.produce('k', 'a');
    w.produce('k', 'b');
    await w.broker.run({ until: T0 + 5 * 60_000 });
    await retrying.stop();

    // Seen: no park-state-lost event, since read as 36 x T0, and ['k:a FAIL', 'k:a', 'k:b', 'k:a'].
    expect(w.events.filter((e) => e.type === 'park-state-lost').length).toBeGreaterThan(0);
    const k = w.handled.filter((h) => h.startsWith('k:'));
    expect(k[k.length - 1]).toBe('k:b');
  });

  it.failing('the fault property\'s shrunk case: order suffers for no key that was in retry when the state was lost', async () => {
    const losses: StepEvent[] = [{ kind: 'state-lost', at: 4 }, { kind: 'state-lost', at: 1 }];
    const result = await faultWorld({
      ordering: 'park-by-key',
      reaction: 'kafkajs',
      records: [{ key: 'A', partition: 1, failures: 1 }, { key: 'A', partition: 1, failures: 0 }],
      parkingBudgetBytes: 60,
      partitions: 2,
      faults: [{ operation: 'commit', at: 2, times: 1, nonRetriable: false }],
      events: losses,
    }).run();
    expect(result.statesLost).toBe(2);
    expect([...result.lostKeys]).toEqual([]); // nothing was held, parked or in the tiers at either loss
    // Seen: ['A: record 0 last ran after 1'] (A's stale first-tier copy ran after record 1).
    expect(result.outOfOrder).toEqual([]);
  });
});
