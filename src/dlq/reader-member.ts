import type { Consumer, Kafka } from 'kafkajs';
import { DefectError } from '../runtime/krt-error';
import { disconnectAfterRun } from '../runtime/adapters/kafkajs-leave';
import { everyPartitionAssigner } from '../runtime/adapters/every-partition-assigner';
import { onFatalCrash } from './fatal-crash';

/** What a read still attached to a member hears when the member leaves (the console stopping). */
export class DlqReaderClosed extends Error {
  constructor() {
    super('the DLQ reader left its group before the read ended (the console is stopping)');
    this.name = 'DlqReaderClosed';
  }
}

/** A fetched batch of the DLQ, as a read takes it. */
export interface ReaderBatch {
  readonly partition: number;
  readonly messages: readonly { offset: string; timestamp: string; key: Buffer | null; value: Buffer | null; headers?: unknown }[];
  readonly firstOffset?: () => string | null;
  readonly lastOffset?: () => string;
}

/** What one read does with what its member hears: a member serves one read at a time. */
export interface ReadHandlers {
  /** The member joined the reader group, or rejoined it (a member came or went): the read seeks where it got to. */
  readonly joined: () => void;
  /**
   * A fetched batch. `stale` when it was fetched before the read's last seek of its
   * partition: it says nothing of where the read is now and must be passed over.
   */
  readonly batch: (batch: ReaderBatch, stale: boolean) => Promise<void>;
  /** A fetch covered [first, last] of a partition and found offsets without records only (transaction markers, aborted records). */
  readonly markers: (partition: number, first: bigint, last: bigint) => void;
  /** The member can no longer read: its client gave up, or a handler threw. */
  readonly failed: (error: unknown) => void;
}

/** How a member that lingers between reads polls: an idle fetch of paused partitions sleeps this long, so a read waits no more to start. */
const LINGERING_MAX_WAIT_MS = 100;
/**
 * How often a lingering member heartbeats: a member that joins (`krt dlq inspect`, a second
 * console) waits for every member already there to rejoin, and an idle one learns of it
 * at its next heartbeat (kafkajs's default is every 3 s).
 */
const LINGERING_HEARTBEAT_MS = 1_000;

/**
 * One member of a consumer's DLQ reader group (dlqReaderGroupName): connected, subscribed
 * and running, every partition paused while no read holds it. A read attaches, seeks the
 * partitions it reads to where it starts, resumes them, and detaches when done, so a
 * member that lingers serves read after read without joining the group again.
 */
export class ReaderMember {
  private read: ReadHandlers | undefined;
  /** The DLQ's partitions the member holds as of its last join; undefined until it joined. */
  private assigned: readonly number[] | undefined;
  private failure: unknown;
  private closed = false;
  /** The connect, subscribe and run begun by start(), settled: close() waits for it, so nothing runs once close() resolved. */
  private begun: Promise<void> = Promise.resolve();
  private leaving: Promise<void> | undefined;

  private constructor(
    private readonly client: Consumer,
    readonly topic: string,
  ) {}

  /**
   * Starts a member of `group` reading `topic`: it connects and joins in the background, and
   * the read attached seeks when the join ends. `lingering` tunes the client to idle cheaply
   * and start reads at once.
   */
  static start(kafka: Kafka, group: string, topic: string, lingering: boolean): ReaderMember {
    const client = kafka.consumer({
      groupId: group,
      retry: { retries: 5 },
      partitionAssigners: [everyPartitionAssigner],
      ...(lingering ? { maxWaitTimeInMs: LINGERING_MAX_WAIT_MS, heartbeatInterval: LINGERING_HEARTBEAT_MS } : {}),
    });
    const member = new ReaderMember(client, topic);
    client.on(client.events.GROUP_JOIN, (event) => {
      const assignment = (event as { payload?: { memberAssignment?: Record<string, number[]> } } | undefined)?.payload?.memberAssignment;
      member.assigned = assignment?.[topic] ?? [];
      // Emitted before the first fetch of the new generation: nothing is fetched that no read asked for.
      if (member.read) member.read.joined();
      else client.pause([{ topic }]);
    });
    // A fetch of markers or aborted records only delivers no batch to eachBatch.
    client.on(client.events.END_BATCH_PROCESS, (event) => {
      const e = (event as { payload?: { partition: number; batchSize: number; firstOffset: string | null; lastOffset: string } } | undefined)?.payload;
      if (!member.read || !e || e.batchSize !== 0 || e.firstOffset === null) return;
      member.read.markers(e.partition, BigInt(e.firstOffset), BigInt(e.lastOffset));
    });
    onFatalCrash(client, (error) => member.fail(error), `the DLQ reader of ${topic}`);
    // close() may come at any step (a console stopped as it starts): each step after it is left undone.
    const unlessClosed = (step: () => Promise<void>) => (member.closed ? Promise.resolve() : step());
    member.begun = client
      .connect()
      .then(() => unlessClosed(() => client.subscribe({ topics: [topic], fromBeginning: true })))
      .then(() =>
        unlessClosed(() =>
          client.run({
            autoCommit: false,
            eachBatch: async ({ batch, isStale }) => {
              const read = member.read;
              if (!read) return;
              try {
                await read.batch(batch as unknown as ReaderBatch, isStale());
              } catch (error) {
                // The read ends with its own error; the member stays a member for the next one.
                read.failed(error);
              }
            },
          }),
        ),
      )
      .catch((error: unknown) => member.fail(error));
    return member;
  }

  /** Whether the member can serve another read. */
  get usable(): boolean {
    return !this.closed && this.failure === undefined;
  }

  /** Gives the member to one read, which hears of each join, batch and failure until it detaches. */
  attach(read: ReadHandlers): void {
    if (this.read) throw new DefectError('a reader member serves one read at a time');
    this.read = read;
    if (this.failure !== undefined) read.failed(this.failure);
    else if (this.assigned !== undefined) read.joined();
  }

  /**
   * Reads these partitions from these offsets and pauses every other: each seek marks the
   * batches fetched before it stale. Called by the attached read on each join, and whenever
   * it must read again from where it got to; before the first join it waits for that join.
   */
  readFrom(positions: ReadonlyMap<number, bigint>): void {
    if (this.assigned === undefined || !this.usable) return;
    const topic = this.topic;
    // Resumes the whole topic first: kafkajs forgets a topic-wide pause when a partition is paused alone.
    this.client.resume([{ topic }]);
    const others = [...new Set([...(this.assigned ?? []), ...positions.keys()])].filter((p) => !positions.has(p));
    if (others.length > 0) this.client.pause([{ topic, partitions: others }]);
    for (const [partition, offset] of positions) this.client.seek({ topic, partition, offset: offset.toString() });
  }

  /** The attached read needs nothing more of this partition. */
  stop(partition: number): void {
    this.client.pause([{ topic: this.topic, partitions: [partition] }]);
  }

  /** Ends the attached read's hold: every partition paused, anything still fetched passed over. */
  detach(): void {
    this.read = undefined;
    if (this.assigned !== undefined && this.usable) this.client.pause([{ topic: this.topic }]);
  }

  /**
   * Leaves the group at once, so the next member's join does not wait for a session timeout.
   * A read still attached ends with an error rather than waiting for batches that will not
   * come. Once is enough: a second call waits for the first.
   */
  close(): Promise<void> {
    if (this.leaving) return this.leaving;
    const read = this.read;
    this.closed = true;
    this.read = undefined;
    read?.failed(new DlqReaderClosed());
    // kafkajs sends no LeaveGroup for a member still joining (the broker keeps it for a session
    // timeout, and the next member's join waits for it), and a connect under way ends connected
    // after a disconnect: so the steps under way end first, and the member leaves after them.
    this.leaving = disconnectAfterRun(this.client, this.begun);
    return this.leaving;
  }

  private fail(error: unknown): void {
    if (this.failure === undefined) this.failure = error;
    this.read?.failed(error);
  }
}
