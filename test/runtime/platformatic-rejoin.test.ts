import { EventEmitter } from 'node:events';
import { platformaticPort } from '../../src/runtime/adapters/platformatic';
import type { PlatformaticConsumerLike, PlatformaticKafkaLike, PlatformaticMessageLike, PlatformaticProducerLike, PlatformaticStreamLike } from '../../src/runtime/adapters/platformatic';
import type { FetchCallback, GatedFetchOptions } from '../../src/runtime/adapters/platformatic-fetch-gate';
import type { ConsumerPort } from '../../src/runtime/port';

/*
 * Attack on the @platformatic/kafka adapter's start-over after a rejoin
 * (src/runtime/adapters/platformatic.ts, startOver: gate.invalidateAll() and runs.reset()
 * drop every record fetched and not yet handed out; fixed: it drops the stream's positions
 * too, so the client reads every partition from its commit or the earliest). The client's stream, on
 * 'consumer:group:join', refreshes its positions from the group's committed offsets, but a
 * partition the group never committed keeps the position it had in memory, past the
 * records it fetched (node_modules/@platformatic/kafka/dist/clients/consumer/
 * messages-stream.js: #onConsumerGroupJoin -> #refreshOffsets -> #assignOffsets, which
 * sets the fallback offset only `if (!this.#offsetsToFetch.has(key))`). So the records the
 * adapter dropped are never fetched again; once a later record of the partition is
 * committed they are lost for good. Any rebalance does it: a member joining, the broker
 * moving the coordinator, or the adapter's own rejoin when a topic gains partitions.
 *
 * The fake below is the client's stream reduced to exactly that: fetch from
 * `offsetsToFetch`, move past each response, and on a join take the committed offset
 * where there is one and keep the position where there is none.
 */
const TOPIC = 'orders.confirmed';
const TOPIC_ID = 'id-orders';

class Consumer extends EventEmitter implements PlatformaticConsumerLike {
  static last: Consumer;
  readonly log = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5'];
  /** The group's committed offset of partition 0; -1 until the first commit. */
  committedOffset = -1n;
  stream: Stream | undefined;
  constructor(readonly options: Record<string, unknown>) {
    super();
    Consumer.last = this;
  }
  fetch(options: GatedFetchOptions, callback: FetchCallback): void {
    const partitions = options.topics.flatMap((t) =>
      t.partitions.map((p) => {
        const from = Number((p as unknown as { fetchOffset: bigint }).fetchOffset);
        return { partitionIndex: p.partition, records: this.log.slice(from, from + 3).map((value, i) => ({ value, offset: from + i })) as unknown };
      }),
    );
    setImmediate(() => callback(null, { responses: [{ topicId: TOPIC_ID, partitions }] }));
  }
  metadata(_options: { topics: string[] }, callback: (error: Error | null, metadata?: { topics: Map<string, { id: string; partitionsCount?: number }> }) => void): void {
    callback(null, { topics: new Map([[TOPIC, { id: TOPIC_ID, partitionsCount: 1 }]]) });
  }
  async consume(): Promise<PlatformaticStreamLike> {
    this.stream = new Stream(this);
    this.emit('consumer:group:join');
    return this.stream;
  }
  async commit(options: { offsets: { offset: bigint }[] }): Promise<void> {
    for (const o of options.offsets) this.committedOffset = o.offset;
  }
  async listCommittedOffsets(): Promise<Map<string, bigint[]>> {
    return new Map([[TOPIC, [this.committedOffset]]]);
  }
  /** A rebalance that keeps partition 0 with this member. */
  async joinGroup(): Promise<string> {
    this.emit('consumer:group:join');
    return '';
  }
  async close(): Promise<void> {
    this.stream?.stop();
  }
}

class Stream extends EventEmitter implements PlatformaticStreamLike {
  readonly offsetsToFetch = new Map<string, bigint>();
  private stopped = false;
  constructor(private readonly consumer: Consumer) {
    super();
    // The client's #onConsumerGroupJoin: positions from the commits; a partition without one keeps its position, else starts at the earliest.
    consumer.on('consumer:group:join', () => {
      const key = `${TOPIC}:0`;
      if (consumer.committedOffset >= 0n) this.offsetsToFetch.set(key, consumer.committedOffset);
      else if (!this.offsetsToFetch.has(key)) this.offsetsToFetch.set(key, 0n);
    });
    setImmediate(() => this.loop());
  }
  private loop(): void {
    if (this.stopped) return;
    const key = `${TOPIC}:0`;
    this.consumer.fetch({ maxWaitTime: 20, topics: [{ topicId: TOPIC_ID, partitions: [{ partition: 0, fetchOffset: this.offsetsToFetch.get(key)! } as never] }] }, (_error, response) => {
      for (const p of response?.responses[0]?.partitions ?? []) {
        const records = p.records as { value: string; offset: number }[] | undefined;
        if (!records || records.length === 0) continue;
        this.offsetsToFetch.set(key, BigInt(records[records.length - 1]!.offset + 1));
        for (const r of records) this.emit('data', message(r.offset, r.value));
      }
      setTimeout(() => this.loop(), 5);
    });
  }
  stop(): void {
    this.stopped = true;
  }
  async close(): Promise<void> {
    this.stop();
  }
}

function message(offset: number, value: string): PlatformaticMessageLike {
  return { topic: TOPIC, partition: 0, key: Buffer.from('k'), value: Buffer.from(value), headerEntries: [], offset: BigInt(offset), timestamp: 1000n };
}

class Producer implements PlatformaticProducerLike {
  async send(): Promise<unknown> {
    return {};
  }
  async metadata(): Promise<{ topics: Map<string, { partitionsCount: number }> }> {
    return { topics: new Map([[TOPIC, { partitionsCount: 1 }]]) };
  }
  async close(): Promise<void> {}
}

const client: PlatformaticKafkaLike = { Consumer, Producer };

async function until(what: string, probe: () => boolean, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('the @platformatic/kafka adapter across a rebalance', () => {
  let consumer: ConsumerPort | undefined;
  afterEach(async () => {
    await consumer?.disconnect();
    consumer = undefined;
  });

  /** Handles records one at a time and commits each (as the runtime does); r0 waits until `release`. */
  async function consuming(seen: string[], hold: Promise<void>) {
    consumer = platformaticPort(client, { connection: { bootstrapBrokers: ['x:9092'] }, nodeVersion: 'v24.22.3', onError: () => undefined }).consumer('g', { maxWaitTimeInMs: 20 });
    const c = consumer;
    await c.subscribe({ topics: [TOPIC] });
    await c.run({
      eachMessage: async ({ message: m }) => {
        if (m.value!.toString() === 'r0') await hold;
        seen.push(m.value!.toString());
        await c.commitOffsets([{ topic: TOPIC, partition: 0, offset: String(Number(m.offset) + 1) }]);
      },
    });
  }

  it('held: a rebalance after the partition was committed reads it again from the commit, nothing skipped', async () => {
    const seen: string[] = [];
    await consuming(seen, Promise.resolve());
    await until('r2 handled', () => seen.includes('r2'));
    await Consumer.last.joinGroup();
    await until('r5 handled', () => seen.includes('r5'));
    expect([...new Set(seen)]).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
  });

  // Was lost: startOver dropped the records queued for a partition the group never
  // committed, and the client's stream kept its position past them.
  it('a rebalance before the first commit of a partition: every record is handled (none skipped)', async () => {
    const seen: string[] = [];
    let release!: () => void;
    await consuming(seen, new Promise<void>((r) => (release = r)));
    // r0 is in the handler; r1 and r2 are fetched and queued; nothing is committed yet.
    await until('the stream past r2', () => Consumer.last.stream?.offsetsToFetch.get(`${TOPIC}:0`) === 3n);
    await Consumer.last.joinGroup(); // another member joins; partition 0 stays here
    release();
    await until('r5 handled', () => seen.includes('r5'));
    expect(Consumer.last.committedOffset).toBe(6n);
    expect([...new Set(seen)].sort()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5']);
  });
});
