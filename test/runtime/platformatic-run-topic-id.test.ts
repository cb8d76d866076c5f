import { createPartitionRuns } from '../../src/runtime/adapters/platformatic-run';
import type { PartitionRuns } from '../../src/runtime/adapters/platformatic-run';
import type { EachBatchPayload, EachMessagePayload, PortMessage, RunOptions } from '../../src/runtime/port';

/**
 * The @platformatic/kafka adapter's partition runs carry, with each record, the id of the
 * topic it was fetched from (a topic deleted and created again under its name gets another),
 * and name it on the payload: a payload's records are all of that one id.
 */
const record = (offset: number): PortMessage => ({ key: null, value: Buffer.from('v'), headers: {}, offset: String(offset), timestamp: '0' });
const OLD = 'AAECAwQFBgcICQoLDA0ODw';
const NEW = 'EBESExQVFhcYGRobHB0eHw';

function runs(): PartitionRuns {
  return createPartitionRuns({ prefetchBytes: Number.MAX_SAFE_INTEGER, onFetchable: () => undefined, onHandlerError: () => undefined, onReposition: () => undefined });
}

/** Starts `r` with `run`, and stops it once `count` records were handed out (or the wait ends). */
async function handOut(r: PartitionRuns, run: (done: () => void) => RunOptions): Promise<void> {
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  r.start(run(finished));
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, 1_000)))]);
  clearTimeout(timer);
  r.stop();
}

describe('partition runs over @platformatic/kafka, naming topic ids', () => {
  it('name on each eachMessage payload the id its record was fetched under', async () => {
    const r = runs();
    r.deliver('t', 0, record(0), 0n, OLD);
    r.deliver('t', 0, record(1), 1n, NEW);
    const seen: [string, string | undefined][] = [];
    await handOut(r, (done) => ({
      eachMessage: async (payload: EachMessagePayload) => {
        seen.push([payload.message.offset, payload.topicId]);
        if (seen.length === 2) done();
      },
    }));
    expect(seen).toEqual([['0', OLD], ['1', NEW]]);
  });

  it('split a queue whose records are of two ids into two eachBatch payloads, each of one id, never mixed', async () => {
    const r = runs();
    for (let i = 0; i < 3; i++) r.deliver('t', 0, record(i), BigInt(i), OLD);
    for (let i = 3; i < 5; i++) r.deliver('t', 0, record(i), BigInt(i), NEW);
    const batches: [string[], string | undefined][] = [];
    await handOut(r, (done) => ({
      eachBatch: async ({ messages, topicId, resolveOffset }: EachBatchPayload) => {
        batches.push([messages.map((m) => m.offset), topicId]);
        resolveOffset(messages[messages.length - 1]!.offset);
        if (batches.flatMap(([offsets]) => offsets).length === 5) done();
      },
    }));
    expect(batches).toEqual([
      [['0', '1', '2'], OLD],
      [['3', '4'], NEW],
    ]);
  });

  it('hand records of a batch not taken again with their own id, not with the records of another id queued after them', async () => {
    const r = runs();
    for (let i = 0; i < 3; i++) r.deliver('t', 0, record(i), BigInt(i), OLD);
    for (let i = 3; i < 5; i++) r.deliver('t', 0, record(i), BigInt(i), NEW);
    const batches: [string[], string | undefined][] = [];
    await handOut(r, (done) => ({
      eachBatch: async ({ messages, topicId, resolveOffset }: EachBatchPayload) => {
        batches.push([messages.map((m) => m.offset), topicId]);
        // The first batch takes only its first record; every later one takes all.
        resolveOffset(messages[batches.length === 1 ? 0 : messages.length - 1]!.offset);
        if (batches.length === 3) done();
      },
    }));
    expect(batches).toEqual([
      [['0', '1', '2'], OLD],
      [['1', '2'], OLD],
      [['3', '4'], NEW],
    ]);
  });

  it('hand out the records of a topic created again from its start, though their offsets are below those of the old log', async () => {
    const r = runs();
    for (let i = 0; i < 5; i++) r.deliver('t', 0, record(i), BigInt(i), OLD);
    for (let i = 0; i < 2; i++) r.deliver('t', 0, record(i), BigInt(i), NEW);
    const seen: [string, string | undefined][] = [];
    await handOut(r, (done) => ({
      eachMessage: async ({ message, topicId }: EachMessagePayload) => {
        seen.push([message.offset, topicId]);
        if (seen.length === 7) done();
      },
    }));
    expect(seen).toEqual([...[0, 1, 2, 3, 4].map((i) => [String(i), OLD]), ['0', NEW], ['1', NEW]]);
  });

  it('still drop a record fetched again under the same id (a repeat), and one without an id below the last offset', async () => {
    const r = runs();
    for (let i = 0; i < 3; i++) r.deliver('t', 0, record(i), BigInt(i), OLD);
    r.deliver('t', 0, record(1), 1n, OLD);
    r.deliver('t', 0, record(2), 2n);
    r.deliver('t', 0, record(3), 3n, OLD);
    const seen: string[] = [];
    await handOut(r, (done) => ({
      eachMessage: async ({ message }: EachMessagePayload) => {
        seen.push(message.offset);
        if (seen.length === 4) done();
      },
    }));
    expect(seen).toEqual(['0', '1', '2', '3']);
  });

  it('give a payload no topicId field where the client told no id, and keep records without one apart from records with one', async () => {
    const r = runs();
    r.deliver('t', 0, record(0), 0n);
    r.deliver('t', 0, record(1), 1n, OLD);
    const payloads: EachBatchPayload[] = [];
    await handOut(r, (done) => ({
      eachBatch: async (payload: EachBatchPayload) => {
        payloads.push(payload);
        payload.resolveOffset(payload.messages[payload.messages.length - 1]!.offset);
        if (payloads.length === 2) done();
      },
    }));
    expect(payloads.map((p) => p.messages.map((m) => m.offset))).toEqual([['0'], ['1']]);
    expect('topicId' in payloads[0]!).toBe(false);
    expect(payloads[1]!.topicId).toBe(OLD);
  });
});
