import { EventEmitter } from 'node:events';
import { platformaticPort } from '../../src/runtime/adapters/platformatic';
import type { PlatformaticConsumerLike, PlatformaticKafkaLike, PlatformaticMessageLike, PlatformaticProducerLike, PlatformaticStreamLike } from '../../src/runtime/adapters/platformatic';
import type { FetchCallback, GatedFetchOptions } from '../../src/runtime/adapters/platformatic-fetch-gate';
import { PLATFORMATIC_PARK_BY_KEY_UNSUPPORTED } from '../../src/runtime/adapters/platformatic-refusals';
import type { ConsumerPort, EachMessagePayload } from '../../src/runtime/port';
import { UnknownPartitionError } from '../../src/runtime/publish-failure';

/**
 * A model of @platformatic/kafka 2.12's MessagesStream over an in-memory log: it fetches
 * every assigned partition from `offsetsToFetch` through the consumer's `fetch()`, moves
 * each offset past the records of the response and pushes them, as the client does.
 */
const TOPIC = 'orders.retry.5s';
/** The topic's id as the client spells it (a hyphenated hex UUID), and as Kafka does. */
const TOPIC_ID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const TOPIC_KAFKA_ID = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex').toString('base64url');

class FakeConsumer extends EventEmitter implements PlatformaticConsumerLike {
  static last: FakeConsumer;
  readonly log = new Map<number, string[]>([
    [0, ['a0', 'a1', 'a2', 'a3']],
    [1, ['b0', 'b1', 'b2', 'b3']],
  ]);
  stream: FakeStream | undefined;
  commits: unknown[] = [];
  /** Fetch responses held back, to answer after the test did something. */
  delayed: (() => void)[] = [];
  delayNext = false;
  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeConsumer.last = this;
  }
  /** The partitions of each fetch request that reached the client (past the gate). */
  requests: number[][] = [];
  fetch(options: GatedFetchOptions, callback: FetchCallback): void {
    this.requests.push(options.topics.flatMap((t) => t.partitions.map((p) => p.partition)));
    const partitions = options.topics.flatMap((t) =>
      t.partitions.map((p) => {
        const from = Number((p as unknown as { fetchOffset: bigint }).fetchOffset);
        return { partitionIndex: p.partition, records: (this.log.get(p.partition) ?? []).slice(from, from + 2).map((value, i) => ({ value, offset: from + i })) as unknown };
      }),
    );
    const answer = () => callback(null, { responses: [{ topicId: TOPIC_ID, partitions }] });
    if (this.delayNext) {
      this.delayNext = false;
      this.delayed.push(answer);
    } else setImmediate(answer);
  }
  metadata(_options: { topics: string[] }, callback: (error: Error | null, metadata?: { topics: Map<string, { id: string }> }) => void): void {
    callback(null, { topics: new Map([[TOPIC, { id: TOPIC_ID }]]) });
  }
  /** Joins refused before the first one that succeeds (a group ACL not yet propagated). */
  refusedJoins = 0;
  async consume(): Promise<PlatformaticStreamLike> {
    if (this.refusedJoins-- > 0) throw new Error('Group authorization failed.');
    this.stream = new FakeStream(this);
    this.emit('consumer:group:join');
    return this.stream;
  }
  async commit(options: { offsets: unknown[] }): Promise<void> {
    this.commits.push(...options.offsets);
  }
  async listCommittedOffsets(): Promise<Map<string, bigint[]>> {
    return new Map([[TOPIC, [3n, -1n]]]);
  }
  async joinGroup(): Promise<string> {
    return '';
  }
  async close(): Promise<void> {
    this.stream?.stop();
  }
}

class FakeStream extends EventEmitter implements PlatformaticStreamLike {
  readonly offsetsToFetch = new Map<string, bigint>([
    [`${TOPIC}:0`, 0n],
    [`${TOPIC}:1`, 0n],
  ]);
  private stopped = false;
  constructor(private readonly consumer: FakeConsumer) {
    super();
    setImmediate(() => this.loop());
  }
  private loop(): void {
    if (this.stopped) return;
    const partitions = [0, 1].map((partition) => ({ partition, fetchOffset: this.offsetsToFetch.get(`${TOPIC}:${partition}`)! }));
    this.consumer.fetch({ maxWaitTime: 20, topics: [{ topicId: TOPIC_ID, partitions }] }, (_error, response) => {
      for (const p of response?.responses[0]?.partitions ?? []) {
        const records = p.records as { value: string; offset: number }[] | undefined;
        if (!records || records.length === 0) continue;
        this.offsetsToFetch.set(`${TOPIC}:${p.partitionIndex}`, BigInt(records[records.length - 1]!.offset + 1));
        for (const r of records) this.emit('data', message(p.partitionIndex, r.offset, r.value));
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

function message(partition: number, offset: number, value: string): PlatformaticMessageLike {
  return { topic: TOPIC, partition, key: Buffer.from('k'), value: Buffer.from(value), headerEntries: [
      [Buffer.from('x-attempt'), Buffer.from('2')],
      // Names a producer may choose that a plain object would not keep as keys.
      [Buffer.from('__proto__'), Buffer.from('p')],
      [Buffer.from('constructor'), Buffer.from('c')],
    ],
    offset: BigInt(offset), timestamp: 1000n };
}

class FakeProducer implements PlatformaticProducerLike {
  static last: FakeProducer;
  sent: unknown[] = [];
  constructor(readonly options: Record<string, unknown>) {
    FakeProducer.last = this;
  }
  async send(options: { messages: unknown[]; acks: number }): Promise<unknown> {
    this.sent.push(...options.messages);
    return {};
  }
  async metadata(): Promise<{ topics: Map<string, { partitionsCount: number }> }> {
    return { topics: new Map([[TOPIC, { partitionsCount: 2 }]]) };
  }
  async close(): Promise<void> {}
}

const client: PlatformaticKafkaLike = { Consumer: FakeConsumer, Producer: FakeProducer };
const port = (nodeVersion = 'v24.22.3') => platformaticPort(client, { connection: { bootstrapBrokers: ['x:9092'] }, nodeVersion, onError: () => undefined });

async function until<T>(what: string, probe: () => T | undefined, ms = 3_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('the @platformatic/kafka adapter', () => {
  let consumer: ConsumerPort | undefined;
  afterEach(async () => {
    await consumer?.disconnect();
    consumer = undefined;
  });

  async function consuming(handler: (record: EachMessagePayload) => Promise<void>, { maxBytesPerPartition = 16 * 1024, partitionsConsumedConcurrently = 1 } = {}): Promise<ConsumerPort> {
    consumer = port().consumer('g.retry', { maxBytesPerPartition, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
    await consumer.run({ eachMessage: handler, partitionsConsumedConcurrently });
    return consumer;
  }

  it('refuses a park-by-key consumer at construction, saying why and what to use instead', () => {
    expect(() => port().consumer('g', { coPartitioned: true })).toThrow(PLATFORMATIC_PARK_BY_KEY_UNSUPPORTED);
    expect(PLATFORMATIC_PARK_BY_KEY_UNSUPPORTED).toMatch(/without metadata.*kafkajsPort/);
  });

  it('refuses to start on a Node the client does not support (its engines: 22.22 or newer) with one sentence naming the versions it needs', () => {
    const needs = (v: string) => `@platformatic/kafka needs Node 22.22 or newer and this is Node ${v}; run this service on Node 22.22+ or 24, or use kafkajsPort or confluentPort`;
    for (const v of ['v20.19.2', 'v22.12.0', 'v22.21.9']) expect(() => port(v)).toThrow(needs(v));
    for (const v of ['v22.22.0', 'v23.0.0', 'v24.5.0', 'v26.1.0']) expect(() => port(v)).not.toThrow();
  });

  it('fetches a partition again while less than one fetch of it is queued, and not while more is', async () => {
    // Each record weighs 3 bytes (key and value) and a response carries two: 6 bytes, one fetch's worth at 5.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    await consuming(async ({ message }) => {
      if (message.value!.toString() === 'a0') await released;
      seen.push(message.value!.toString());
    }, { maxBytesPerPartition: 5, partitionsConsumedConcurrently: 2 });
    await until('partition 1 to be read to its end', () => (seen.includes('b3') ? true : undefined));
    await new Promise((r) => setTimeout(r, 50));
    const fetchesOfPartition0 = () => FakeConsumer.last.requests.filter((partitions) => partitions.includes(0)).length;
    // a0 in hand, a1 queued (3 bytes): a2 and a3 fetched ahead; then 9 bytes queued, so no more.
    expect(fetchesOfPartition0()).toBe(2);
    release();
    await until('partition 0 to be read to its end', () => (seen.includes('a3') ? true : undefined));
    expect(seen.filter((v) => v.startsWith('a'))).toEqual(['a0', 'a1', 'a2', 'a3']);
  });

  it('fetches a main partition (its fetch size the default, 256 KiB) again while less than four fetches of it are queued', async () => {
    // Records of 128 KiB, two a response: a0 in hand, then 128, 384, 640, 896 and 1,152 KiB queued after each response.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    consumer = port().consumer('g');
    const values = Array.from({ length: 14 }, (_, i) => `a${i}`);
    FakeConsumer.last.log.set(0, values.map((v) => v.padEnd(128 * 1024)));
    FakeConsumer.last.log.set(1, []);
    await consumer.connect();
    await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const value = message.value!.toString().trim();
        if (value === 'a0') await released;
        seen.push(value);
      },
    });
    await until('the fifth response of partition 0', () => (FakeConsumer.last.requests.filter((partitions) => partitions.includes(0)).length >= 5 ? true : undefined));
    await new Promise((r) => setTimeout(r, 50));
    // With one fetch's worth allowed, the second response (384 KiB queued) would have stopped it at two.
    expect(FakeConsumer.last.requests.filter((partitions) => partitions.includes(0)).length).toBe(5);
    release();
    await until('partition 0 to be read to its end', () => (seen.includes('a13') ? true : undefined));
    expect(seen).toEqual(values);
  });

  it('hands out no record of a paused partition while the other partition goes on, and reads it again from its head once resumed', async () => {
    const seen: string[] = [];
    let paused = false;
    const c = await consuming(async ({ partition, message }) => {
      const value = message.value!.toString();
      if (value === 'a1' && !paused) {
        // The tier pipeline's wait: pause the partition and seek back to its head record.
        paused = true;
        c.pause([{ topic: TOPIC, partitions: [partition] }]);
        c.seek({ topic: TOPIC, partition, offset: message.offset });
        return;
      }
      seen.push(value);
    });
    await until('partition 1 to be read to its end', () => (seen.includes('b3') ? true : undefined));
    expect(seen.filter((v) => v.startsWith('a'))).toEqual(['a0']);
    c.seek({ topic: TOPIC, partition: 0, offset: '1' });
    c.resume([{ topic: TOPIC, partitions: [0] }]);
    await until('partition 0 to be read to its end', () => (seen.includes('a3') ? true : undefined));
    expect(seen.filter((v) => v.startsWith('a'))).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(seen.filter((v) => v.startsWith('b'))).toEqual(['b0', 'b1', 'b2', 'b3']);
  });

  it('reads a partition paused mid-response by another partition\'s handler from its first record once resumed (none skipped)', async () => {
    const seen: string[] = [];
    let paused = false;
    // One response carries a0, a1, then b0, b1; a0's handler pauses partition 1 before b0 is pushed (nothing of it handed out yet).
    const c = await consuming(async ({ message }) => {
      const value = message.value!.toString();
      if (value === 'a0' && !paused) {
        paused = true;
        c.pause([{ topic: TOPIC, partitions: [1] }]);
      }
      seen.push(value);
    });
    await until('partition 0 to be read to its end', () => (seen.includes('a3') ? true : undefined));
    expect(seen.filter((v) => v.startsWith('b'))).toEqual([]);
    c.resume([{ topic: TOPIC, partitions: [1] }]);
    await until('partition 1 to be read to its end', () => (seen.includes('b3') ? true : undefined));
    expect(seen.filter((v) => v.startsWith('b'))).toEqual(['b0', 'b1', 'b2', 'b3']);
  });

  it('does not let a fetch that was in flight during a seek carry the partition past the sought record', async () => {
    const seen: string[] = [];
    let sought = false;
    const c = await consuming(async ({ partition, message }) => {
      const value = message.value!.toString();
      seen.push(value);
      if (value === 'a1' && !sought) {
        sought = true;
        // The next fetch (a2, a3) is answered only after the seek back to a0.
        FakeConsumer.last.delayNext = true;
        await new Promise((r) => setTimeout(r, 30));
        c.seek({ topic: TOPIC, partition, offset: '0' });
        for (const answer of FakeConsumer.last.delayed.splice(0)) answer();
      }
    });
    await until('partition 0 to be read to its end', () => (seen.filter((v) => v === 'a3').length > 0 ? true : undefined));
    const a = seen.filter((v) => v.startsWith('a'));
    // After the seek, a0 comes again and nothing of partition 0 is skipped.
    expect(a.slice(a.indexOf('a1') + 1)).toEqual(['a0', 'a1', 'a2', 'a3']);
  });

  it('hands a record whose handler threw to the handler again, and the records after it only then', async () => {
    const seen: string[] = [];
    let thrown = false;
    await consuming(async ({ message }) => {
      const value = message.value!.toString();
      if (value === 'a1' && !thrown) {
        thrown = true;
        throw new Error('downstream 503');
      }
      seen.push(value);
    });
    await until('partition 0 to be read to its end', () => (seen.includes('a3') ? true : undefined));
    expect(seen.filter((v) => v.startsWith('a'))).toEqual(['a0', 'a1', 'a2', 'a3']);
  });

  it('reports a rejoin the client gave up on instead of letting the unheard error event throw inside the client', async () => {
    const errors: unknown[] = [];
    consumer = platformaticPort(client, { connection: { bootstrapBrokers: ['x:9092'] }, nodeVersion: 'v24.22.3', onError: (error) => errors.push(error) }).consumer('g');
    expect(() => FakeConsumer.last.emit('error', new Error('Connection closed'))).not.toThrow();
    expect(errors).toEqual([new Error('Connection closed')]);
  });

  it('does not fail run() on a refused join: it reports it and joins again, as kafkajs does', async () => {
    const errors: string[] = [];
    consumer = platformaticPort(client, { connection: { bootstrapBrokers: ['x:9092'] }, nodeVersion: 'v24.22.3', onError: (error, retryInMs) => errors.push(`${String(error)} (${retryInMs} ms)`) }).consumer('g');
    FakeConsumer.last.refusedJoins = 1;
    const seen: string[] = [];
    await consumer.subscribe({ topics: [TOPIC] });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
    expect(errors).toEqual(['Error: Group authorization failed. (1000 ms)']);
    await until('records after the second join', () => (seen.length > 0 ? true : undefined), 5_000);
  });

  it('gives the runtime each record with its headers by name and its offset and timestamp as strings', async () => {
    const seen: EachMessagePayload[] = [];
    await consuming(async (record) => void seen.push(record));
    const first = await until('a record', () => seen[0]);
    expect(first.message).toMatchObject({ key: Buffer.from('k'), offset: '0', timestamp: '1000', headers: { 'x-attempt': Buffer.from('2') } });
  });

  it('names on each payload the id the fetch response gives the record\'s topic, in Kafka\'s spelling', async () => {
    const seen: EachMessagePayload[] = [];
    await consuming(async (record) => void seen.push(record));
    await until('records of both partitions', () => (new Set(seen.map((r) => r.partition)).size === 2 ? true : undefined));
    expect(new Set(seen.map((r) => r.topicId))).toEqual(new Set([TOPIC_KAFKA_ID]));
  });

  it('gives the runtime headers named __proto__ and constructor as headers like any other', async () => {
    const seen: EachMessagePayload[] = [];
    await consuming(async (record) => void seen.push(record));
    const { headers } = (await until('a record', () => seen[0])).message;
    expect(Object.prototype.hasOwnProperty.call(headers, '__proto__')).toBe(true);
    expect(headers!['__proto__']).toEqual(Buffer.from('p'));
    expect(headers!['constructor']).toEqual(Buffer.from('c'));
  });

  it('commits offsets without claiming a leader epoch, and refuses a commit that carries metadata', async () => {
    const c = await consuming(async () => undefined);
    await c.commitOffsets([{ topic: TOPIC, partition: 0, offset: '3' }]);
    expect(FakeConsumer.last.commits).toEqual([{ topic: TOPIC, partition: 0, offset: 3n, leaderEpoch: -1 }]);
    await expect(c.commitOffsets([{ topic: TOPIC, partition: 0, offset: '4', metadata: 'krt-parked/1' }])).rejects.toThrow(/without metadata/);
  });

  it('reads committed offsets, -1 where the group has none, and no metadata', async () => {
    const c = await consuming(async () => undefined);
    expect(await c.committed(TOPIC, [0, 1])).toEqual([
      { partition: 0, offset: '3', metadata: null },
      { partition: 1, offset: '-1', metadata: null },
    ]);
  });

  it('refuses to publish to a partition the destination topic lacks, where the client would write it to another partition', async () => {
    const producer = port().producer();
    await expect(producer.send({ topic: TOPIC, messages: [{ key: null, value: Buffer.from('v'), headers: {}, partition: 5 }] })).rejects.toBeInstanceOf(UnknownPartitionError);
    await producer.send({ topic: TOPIC, messages: [{ key: Buffer.from('k'), value: Buffer.from('v'), headers: { 'x-attempt': '2', tag: ['a', 'b'] }, partition: 1, timestamp: '5' }] });
    const [sent] = FakeProducer.last.sent as { partition: number; timestamp: bigint; headers: Map<Buffer, Buffer> }[];
    expect({ partition: sent!.partition, timestamp: sent!.timestamp }).toEqual({ partition: 1, timestamp: 5n });
    expect([...sent!.headers].map(([k, v]) => [k.toString(), v.toString()])).toEqual([
      ['x-attempt', '2'],
      ['tag', 'a'],
      ['tag', 'b'],
    ]);
    expect(FakeProducer.last.options).toMatchObject({ idempotent: true, acks: -1 });
  });
});
