import type { KafkaPort } from '../../src/runtime/port';
import { hidingRecords } from './control-record-port';
import { BIG, HeldMainWorld } from './held-main-world';

const WINDOW = 4;

/** `port` whose consumers' `committed` is refused while `refusing()` says so (a coordinator moving, a timeout). */
function refusingCommitted(port: KafkaPort, refusing: () => boolean): KafkaPort {
  return {
    producer: port.producer,
    consumer: (groupId, options) => {
      const inner = port.consumer(groupId, options);
      return new Proxy(inner, {
        get(target, prop) {
          if (prop === 'committed') {
            return async (t: string, p: number[]) => {
              if (refusing()) throw new Error('The coordinator is not available');
              return target.committed(t, p);
            };
          }
          const value = Reflect.get(target, prop) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
}

/**
 * Fixed: a group's commit not read tells nothing; the partition reads on (main-pipeline.ts movedOnFrom).
 * Attack 23, finding: unbounded duplicates (other). 5a6a335's movedOnFrom reads a compacted
 * same log again from its START when the group's commit cannot be read (refused for longer than
 * GROUP_COMMIT_READ_TIMEOUT_MS, 5 s): every record of the topic runs again.
 *
 * Scenario (unordered, held-main-world): a0..a9 run and are committed (10); BIG (10) is held
 * (no copy fits). b0 comes and compaction removes BIG (b0 a later record of its key). The
 * group's commit cannot be read (the coordinator moving, a timeout) when the operator raises
 * the limit and the partition is read at its anchor.
 *
 * Seen: the first record read at the anchor's offset is past it (moved-on); the log start (0)
 * is at or below the anchor; groupCommitOf times out (undefined); the partition is read again
 * from the log start: a0..a9 run a second time. On a compacted topic that is its whole history
 * (docs: "a compacted log runs only its uncommitted records again"). With the read answered,
 * the commit is this member's own and it reads on (held-resume-own-older-commit-compacted-anchor).
 *
 * Code at fault: main-pipeline.ts movedOnFrom: `committed !== undefined && ... ? committed :
 * BigInt(start)`: a commit that could not be read is taken as "no commit": log start.
 *
 * Class: duplicates past any bound (every committed record again), on a transient refusal.
 *
 * Fix I'd make: a read that timed out tells nothing: return undefined (read on, as a port
 * without log starts does), or leave the anchor wait in place and judge again at the next
 * batch (as the stale-batch case does), never fall back to the log start.
 */
describe('attack 23: a held record compacted away while the group\'s commit cannot be read', () => {
  it('reads on (or from the commit): nothing committed runs again', async () => {
    const compacted = new Set<string>();
    let refusing = false;
    const world = new HeldMainWorld({
      port: (port) => refusingCommitted(hidingRecords(port, (m) => compacted.has(m.value?.toString() ?? '')), () => refusing),
      consumerOptions: { commit: { intervalMs: 0, maxRecords: WINDOW } },
    });
    for (let i = 0; i < 10; i++) world.produce(`a${i}`, `a${i}`);
    world.produce(BIG); // offset 10
    await world.start();
    await world.runFor(60_000);
    expect({ held: world.count('publish-held'), committed: world.committed() }).toEqual({ held: 1, committed: 10 });
    world.produce('b0');
    compacted.add(BIG);
    refusing = true; // the group's commit cannot be read for a while (longer than the 5 s the read waits)
    world.clock.setTimer(250_000, () => (refusing = false)); // answered again before the run ends
    world.maxMessageBytes = 4_000;
    await world.runFor(300_000);
    await world.stop();
    const runs = world.mainRuns.map((value) => value.slice(0, 3));
    const twice = [...new Set(runs.filter((r, i) => r !== 'big' && runs.indexOf(r) !== i))];
    expect({ b0: runs.includes('b0'), twice }).toEqual({ b0: true, twice: [] }); // fails on 7caca14: a0..a9 twice
  }, 30_000);
});
