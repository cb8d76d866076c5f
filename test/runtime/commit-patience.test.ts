import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { CLIENT_STOPPED, COMMIT_PATIENCE_MS, untilAccepted, worthWaitingOut } from '../../src/runtime/commit-patience';
import { MetadataTooLargeError } from '../../src/simulate/memory-broker';

/** A protocol error as kafkajs builds it from a broker's error code. */
const kafkajsProtocol = (type: string) => new KafkaJSProtocolError({ message: type, type, code: 0, retriable: true } as unknown as string);
/** kafkajs's error once its own retries of a request are spent: not retriable, the last refusal as its cause. */
const retriesExceeded = (cause: Error) => new (KafkaJSNumberOfRetriesExceeded as unknown as new (e: Error, o: object) => Error)(cause, { retryCount: 5, retryTime: 3000 });
/** An error as the Confluent client's KafkaJS API gives it: the librdkafka name, with `ERR_` or `ERR__`, as its type. */
const confluent = (type: string) => Object.assign(new Error(type), { name: 'KafkaJSError', type });

describe('which refused commits are worth waiting out', () => {
  it.each([
    ['kafkajs: the coordinator moved', kafkajsProtocol('NOT_COORDINATOR_FOR_GROUP')],
    ['kafkajs: the coordinator is loading its offsets', kafkajsProtocol('GROUP_LOAD_IN_PROGRESS')],
    ['kafkajs: a connection that failed', new KafkaJSConnectionError('Connection error')],
    ['kafkajs: its own retries exhausted on a coordinator away', retriesExceeded(kafkajsProtocol('GROUP_COORDINATOR_NOT_AVAILABLE'))],
    ['Confluent: the coordinator moved', confluent('ERR_NOT_COORDINATOR')],
    ['Confluent: a local time-out', confluent('ERR__TIMED_OUT')],
    ['Confluent: every broker down', confluent('ERR__ALL_BROKERS_DOWN')],
  ])('%s: waited out', (_, error) => {
    expect(worthWaitingOut(error)).toBe(true);
  });

  it.each([
    ['kafkajs: the member lost its generation', kafkajsProtocol('ILLEGAL_GENERATION')],
    ['kafkajs: a rebalance began', kafkajsProtocol('REBALANCE_IN_PROGRESS')],
    ['kafkajs: retries exhausted on an unknown member', retriesExceeded(kafkajsProtocol('UNKNOWN_MEMBER_ID'))],
    ['Confluent: the assignment was lost', confluent('ERR__ASSIGNMENT_LOST')],
    ['Confluent: a commit outside the group', confluent('ERR__STATE')],
    ['an adapter whose client stopped', Object.assign(new Error('not running'), { type: CLIENT_STOPPED })],
    ['one partition refused: its topic deleted (it may be created again while the commit waits)', kafkajsProtocol('UNKNOWN_TOPIC_OR_PARTITION')],
    ['metadata too large (the budget answers that)', new MetadataTooLargeError()],
    ['an error nobody names', new Error('something else')],
    ['no error object at all', 'refused'],
  ])('%s: not waited out', (_, error) => {
    expect(worthWaitingOut(error)).toBe(false);
  });

  it('is not waited out when a coordinator error comes wrapped with a lost membership beside it', () => {
    const both = Object.assign(new Error('aggregate'), { errors: [kafkajsProtocol('NOT_COORDINATOR_FOR_GROUP'), kafkajsProtocol('ILLEGAL_GENERATION')] });
    expect(worthWaitingOut(both)).toBe(false);
  });
});

describe('sending a commit until it is accepted', () => {
  const away = () => kafkajsProtocol('NOT_COORDINATOR_FOR_GROUP');
  /** A commit refused `refusals` times, then accepted; and a sleep that records its waits. */
  function scene(refusals: number) {
    let sent = 0;
    const waits: number[] = [];
    const refused: unknown[] = [];
    const send = async () => {
      sent++;
      if (sent <= refusals) throw away();
    };
    const sleep = async (ms: number) => {
      waits.push(ms);
    };
    return { send, sleep, waits, refused, sent: () => sent };
  }

  it('waits out refusals, doubling its wait from 100 ms up to 5 s, and reports each', async () => {
    const s = scene(8);
    await untilAccepted(s.send, { stillOurs: () => true, sleep: s.sleep, onRefused: (e) => s.refused.push(e) });
    expect(s.sent()).toBe(9);
    expect(s.waits).toEqual([100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000]);
    expect(s.refused).toHaveLength(8);
  });

  it('gives up with the last refusal once the next wait would pass the patience in all', async () => {
    const s = scene(1_000);
    await expect(untilAccepted(s.send, { stillOurs: () => true, sleep: s.sleep })).rejects.toMatchObject({ type: 'NOT_COORDINATOR_FOR_GROUP' });
    const waited = s.waits.reduce((a, b) => a + b, 0);
    expect(waited).toBeLessThanOrEqual(COMMIT_PATIENCE_MS);
    expect(waited + 5_000).toBeGreaterThan(COMMIT_PATIENCE_MS);
  });

  it('stops waiting once the partition is no longer its own (a rebalance or a failure dropped its state)', async () => {
    const s = scene(1_000);
    let ours = true;
    const sleep = async (ms: number) => {
      await s.sleep(ms);
      if (s.waits.length === 2) ours = false;
    };
    await expect(untilAccepted(s.send, { stillOurs: () => ours, sleep })).rejects.toMatchObject({ type: 'NOT_COORDINATOR_FOR_GROUP' });
    expect(s.sent()).toBe(2);
  });

  it('heartbeats after each wait, and stops waiting when the heartbeat says a rebalance began', async () => {
    const s = scene(1_000);
    let beats = 0;
    const heartbeat = async () => {
      beats++;
      if (beats === 3) throw kafkajsProtocol('REBALANCE_IN_PROGRESS');
      if (beats === 1) throw away(); // the coordinator away: waited on
    };
    await expect(untilAccepted(s.send, { stillOurs: () => true, sleep: s.sleep, heartbeat })).rejects.toMatchObject({ type: 'NOT_COORDINATOR_FOR_GROUP' });
    expect({ beats, sent: s.sent() }).toEqual({ beats: 3, sent: 3 });
  });

  it('fails with the refusal, not the stop, when the consumer stops during a wait', async () => {
    const s = scene(1_000);
    const stopping = async () => {
      throw new Error('stop requested');
    };
    await expect(untilAccepted(s.send, { stillOurs: () => true, sleep: stopping })).rejects.toMatchObject({ type: 'NOT_COORDINATOR_FOR_GROUP' });
    expect(s.sent()).toBe(1);
  });

  it('sends once and fails at once on a refusal not worth waiting out, or without a way to wait', async () => {
    const lost = scene(0);
    const send = async () => {
      await lost.send();
      throw kafkajsProtocol('ILLEGAL_GENERATION');
    };
    await expect(untilAccepted(send, { stillOurs: () => true, sleep: lost.sleep })).rejects.toMatchObject({ type: 'ILLEGAL_GENERATION' });
    expect(lost.sent()).toBe(1);
    const noSleep = scene(1);
    await expect(untilAccepted(noSleep.send, { stillOurs: () => true })).rejects.toMatchObject({ type: 'NOT_COORDINATOR_FOR_GROUP' });
    expect(noSleep.sent()).toBe(1);
  });
});
