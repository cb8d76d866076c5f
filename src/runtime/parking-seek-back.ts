import type { PartitionParking } from './partition-parking';
import { judgeSoughtBack, SEEK_AGAIN_MS } from './sought-back';

export interface ParkingSeekBackOptions {
  readonly now: () => number;
  readonly setTimer: (ms: number, work: () => void) => () => void;
  /** The group generation this member is in (a rebalance moves it). */
  readonly generation: () => number;
  /** Seeks main partition p to `offset` (key-parking.ts seekMain: counted, and the parking's next offset moved). */
  readonly seekMain: (partition: number, offset: bigint) => void;
  /** Runs `work` on p's state under p's lock, while the generation is still `setIn` (key-parking.ts onTimer). */
  readonly onTimer: (partition: number, setIn: number, work: (parking: PartitionParking) => Promise<void>) => void;
  /** Whether p is paused here (at its budget): its resume seeks, and seeking it meanwhile reads nothing. */
  readonly paused: (partition: number) => boolean;
}

/** Park-by-key's seeks back of a main partition, and when what a record read past them says counts (sought-back.ts). */
export function createParkingSeekBack({ now, setTimer, generation, seekMain, onTimer, paused }: ParkingSeekBackOptions) {
  /**
   * Whether p, sought back to `at` to confirm what is missing there, still reads past it (the
   * record at `offset`): only once the seek took effect (sought-back.ts). Until then the record is
   * not taken, and p reads on from `at`.
   */
  function soughtPast(partition: number, parking: PartitionParking, why: 'gap' | 'position', at: bigint, offset: bigint): boolean {
    const { verdict, next } = judgeSoughtBack(parking.soughtBack?.[why], at, offset, now());
    parking.soughtBack = { ...parking.soughtBack, [why]: next };
    if (verdict === 'past') return true;
    if (verdict === 'wait') parking.next = at; // as sought: the records read meanwhile are judged from `at`
    else seekMain(partition, at);
    seekBackAgainLater(partition, why);
    return false;
  }

  /** A seek back that needs no confirmation any more: its timer stops seeking. */
  function soughtBackDone(parking: PartitionParking, why: 'gap' | 'position'): void {
    if (parking.soughtBack?.[why] !== undefined) parking.soughtBack = { ...parking.soughtBack, [why]: undefined };
  }

  /** The seeks back still waiting to take effect, by partition and why: each has a timer that seeks again. */
  const seekBackTimers = new Set<string>();
  /**
   * Seeks p back again every SEEK_AGAIN_MS while the seek back is still not shown to have taken
   * effect: a seek the client lost, with the records it had fetched ending before the next one
   * was due, left p reading nothing (the end of its log) for good (attack 45).
   */
  function seekBackAgainLater(partition: number, why: 'gap' | 'position'): void {
    const timer = `${partition}/${why}`;
    if (seekBackTimers.has(timer)) return;
    seekBackTimers.add(timer);
    const setIn = generation();
    setTimer(SEEK_AGAIN_MS, () => {
      seekBackTimers.delete(timer);
      onTimer(partition, setIn, async (parking) => {
        const sought = parking.soughtBack?.[why];
        // Paused at its budget, p reads nothing: its resume seeks it until read (key-parking.ts
        // reconcile) and confirms anew; seeking it every 0.5 s meanwhile, for as long as a key is
        // held, only took its lock (review 51).
        if (sought === undefined || paused(partition)) return;
        parking.soughtBack = { ...parking.soughtBack, [why]: { ...sought, lastSeek: now() } };
        seekMain(partition, sought.at);
        seekBackAgainLater(partition, why);
      });
    });
  }
  return {
    soughtPast,
    soughtBackDone,
    /** A rebalance: the timers set before are the old generation's. */
    forget: () => seekBackTimers.clear(),
  };
}
