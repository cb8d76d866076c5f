import type { RetryEvent } from '../../src/runtime/events';
import type { OffsetCommit } from '../../src/runtime/port';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import { MemoryBroker } from '../../src/simulate/memory-broker';
import { VirtualClock } from '../../src/simulate/virtual-clock';
import { consumer, failingOnce } from './park-by-key-world';
import { confluentCommits } from './confluent-commits-double';

/**
 * Found by attack (s27, attack7), fixed (confirmed-commit.ts takes no commit for too large where none is stored); was: on the Confluent client, a partition's first commit (the birth commit of
 * a state begun from nothing, `krt-parked/1 +0 !t`, 26 bytes) lost twice to a coordinator
 * that does not store it (an outage, the coordinator moving: the case commitConfirmed exists
 * for) is taken for a commit refused as too large, and the budget drops to 25 bytes: under
 * what one hold takes (31 bytes), so for the next 1,000 commits (BUDGET_RETRY_AFTER_COMMITS)
 * no key can be held: every failing key's newer records run before its retry. The mark is
 * deleted too (26 > 25) and never comes back, so a recreated topic's old retries are judged
 * as this state's copies for good. No state is lost.
 *
 * Why the birth commit: the "too large" guess (confirmed-commit.ts refusedTwice:
 * mayBeTooLarge, twice in a row with at least as much metadata) compares with what the
 * coordinator shows, and for a partition never committed that is nothing: any metadata is
 * "more". Each retry begins a new state with the same length of mark, so the second loss
 * qualifies. Every partition of a new group (or a recreated topic) makes this commit first.
 * The same class reaches a commit that takes a partition's first hold (lost twice, the budget
 * becomes its size minus one: under one hold again); attack6 accepted "twice in a row" as the
 * heuristic, but not a budget that can hold nothing.
 *
 * Code: src/runtime/adapters/confirmed-commit.ts `refusedTwice`/`mayBeTooLarge` (stored
 * commit absent or at -1); src/runtime/key-parking.ts `commitState` (budget = sent - 1),
 * `stateCommit` (`delete state.since`), `mayHold` (parking-hold-skipped).
 *
 * Class: an ambiguous signal (not shown) resolved to the cause that changes behaviour, on a
 * new commit whose size says nothing about the broker's limit.
 *
 * Fix I'd make: never take a commit of a partition the coordinator shows no commit of for
 * one refused as too large (nothing to compare with), and never lower the budget below what
 * the empty state plus one hold takes because of a guessed refusal (only a refusal the
 * broker states, OFFSET_METADATA_TOO_LARGE from kafkajs, may go that low).
 */
const NOW = 1_764_633_600_000; // a real epoch: the mark is 10 bytes

describe('park-by-key on the Confluent client, its birth commit lost twice', () => {
  it('still holds a failing key, so its next record waits for its retry', async () => {
    const clock = new VirtualClock(NOW);
    const broker = new MemoryBroker(clock);
    broker.throwReaction = 'confluent'; // a record whose operation threw is sought back to
    for (const topic of [consumer.mainTopic, ...consumer.tiers.map((t) => t.topic), consumer.dlqTopic]) broker.createTopic(topic, 1);
    const handled: string[] = [];
    const events: RetryEvent[] = [];
    const birth = (o: OffsetCommit) => o.topic === consumer.mainTopic && /^krt-parked\/1 \+0 ![0-9a-z]+\0?$/.test(o.metadata ?? '');
    const retrying = createRetryingConsumer(consumer, {
      kafka: confluentCommits(broker, birth, 2),
      clock,
      random: () => 0.5,
      onEvent: (e) => events.push(e),
      handler: failingOnce('k:a', handled),
    });
    broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('a'), partition: 0 });
    broker.append(consumer.mainTopic, { key: Buffer.from('k'), value: Buffer.from('b'), partition: 0 });
    await retrying.start();
    clock.setTimer(5 * 60_000, () => undefined);
    await broker.run({ until: NOW + 5 * 60_000 });
    await retrying.stop();

    expect(handled).toContain('k:a');
    // Seen: parking-budget-lowered to 25 bytes (26 refused), parking-hold-skipped (31 needed), ['k:a FAIL', 'k:b', 'k:a'].
    expect(events.filter((e) => e.type === 'parking-hold-skipped')).toEqual([]);
    expect(handled).toEqual(['k:a FAIL', 'k:a', 'k:b']);
  });
});
