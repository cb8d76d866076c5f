import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError, KafkaJSRequestTimeoutError } from 'kafkajs';
import { kafkajsCoordinatorAway } from '../../src/runtime/adapters/kafkajs-commit';
import { confluentCoordinatorAway } from '../../src/runtime/adapters/confluent-commit-refusal';
import { CLIENT_STOPPED, COMMIT_PATIENCE_MS, markWorthWaitingOut, untilAccepted, worthWaitingOut } from '../../src/runtime/commit-patience';
import { MetadataTooLargeError } from '../../src/simulate/memory-broker';
import { confluentError } from './confluent-errors';

/** A protocol error as kafkajs builds it from a broker's error code. */
const kafkajsProtocol = (type: string) => new KafkaJSProtocolError({ message: type, type, code: 0, retriable: true } as unknown as string);
/** kafkajs's error once its own retries of a request are spent: not retriable, the last refusal as its cause. */
const retriesExceeded = (cause: Error) => new (KafkaJSNumberOfRetriesExceeded as unknown as new (e: Error, o: object) => Error)(cause, { retryCount: 5, retryTime: 3000 });

/** The Confluent client's error for a librdkafka code, as its KafkaJS API builds it (confluent-errors.ts). */
const confluent = (code: number) => confluentError(code);

describe('the kafkajs adapter marks the refusals kafkajs cures by itself', () => {
  it.each([
    ['the coordinator loading its offsets', kafkajsProtocol('GROUP_LOAD_IN_PROGRESS')],
    ['no coordinator for a while', kafkajsProtocol('GROUP_COORDINATOR_NOT_AVAILABLE')],
    ['a connection that failed', new KafkaJSConnectionError('Connection error')],
    // kafkajs's class for it is not in its types: named as kafkajs names it.
    ['a connection closed under it', Object.assign(new KafkaJSConnectionError('Closed connection'), { name: 'KafkaJSConnectionClosedError' })],
    ['a request the broker timed out (REQUEST_TIMED_OUT)', kafkajsProtocol('REQUEST_TIMED_OUT')],
    ['a network exception', kafkajsProtocol('NETWORK_EXCEPTION')],
    ['a request that timed out', new KafkaJSRequestTimeoutError('Request OffsetCommit timed out')],
    ['its own retries spent on a coordinator loading', retriesExceeded(kafkajsProtocol('GROUP_LOAD_IN_PROGRESS'))],
  ])('%s', (_, error) => {
    expect(kafkajsCoordinatorAway(error)).toBe(true);
  });

  it.each([
    // kafkajs asks the coordinator of its generation again: a moved one is found only by a rejoin, after the callback.
    ['the coordinator moved (NOT_COORDINATOR_FOR_GROUP)', kafkajsProtocol('NOT_COORDINATOR_FOR_GROUP')],
    ['one partition refused: its topic deleted', kafkajsProtocol('UNKNOWN_TOPIC_OR_PARTITION')],
    ['an error nobody names', new Error('something else')],
  ])('not %s', (_, error) => {
    expect(kafkajsCoordinatorAway(error)).toBe(false);
  });
});

describe('the Confluent adapter marks the refusals the Confluent client cures by itself, by code', () => {
  it('the coordinator loading, without a leader or moved (codes 14, 15 and 16, which the client names by type -1), a time-out, a broken transport, every broker down, waiting for a coordinator', () => {
    expect([14, 15, 16, 7, -185, -195, -187, -180].map((code) => confluentCoordinatorAway(confluent(code)))).toEqual([true, true, true, true, true, true, true, true]);
  });

  it('not a lost generation, an unknown member, a rebalance, a lost assignment or an unknown partition', () => {
    expect([22, 25, 27, -142, 3].map((code) => confluentCoordinatorAway(confluent(code)))).toEqual([false, false, false, false, false]);
  });
});

describe('which refused commits the runtime waits out', () => {
  it('one its adapter marked', () => {
    expect(worthWaitingOut(markWorthWaitingOut(new Error('coordinator away')))).toBe(true);
  });

  it('one marked inside the error a client wrapped it in', () => {
    expect(worthWaitingOut(Object.assign(new Error('wrapper'), { cause: markWorthWaitingOut(new Error('coordinator away')) }))).toBe(true);
  });

  it.each([
    ['unmarked, whatever its name says', kafkajsProtocol('GROUP_LOAD_IN_PROGRESS')],
    ['marked, but carrying a lost generation beside it', markWorthWaitingOut(Object.assign(new Error('aggregate'), { errors: [kafkajsProtocol('ILLEGAL_GENERATION')] }))],
    ['marked, but the Confluent client\u2019s lost assignment (ERR__ASSIGNMENT_LOST) beside it', markWorthWaitingOut(Object.assign(new Error('aggregate'), { errors: [confluentError(-142)] }))],
    ['marked, but the Confluent client\u2019s lost generation beside it', markWorthWaitingOut(Object.assign(new Error('aggregate'), { errors: [confluentError(22)] }))],
    ['marked, from a client that stopped', markWorthWaitingOut(Object.assign(new Error('not running'), { type: CLIENT_STOPPED }))],
    ['marked, but refused as too large (the budget answers that)', markWorthWaitingOut(new MetadataTooLargeError())],
    ['no error object at all', 'refused'],
  ])('not one %s', (_, error) => {
    expect(worthWaitingOut(error)).toBe(false);
  });
});

describe('sending a commit until it is accepted', () => {
  const away = () => markWorthWaitingOut(kafkajsProtocol('GROUP_LOAD_IN_PROGRESS'));
  /** A commit refused `refusals` times, each refusal taking `sendMs`, then accepted; a clock the sleeps and sends move. */
  function scene(refusals: number, sendMs = 0) {
    let now = 0;
    let sent = 0;
    const waits: number[] = [];
    const send = async () => {
      sent++;
      now += sendMs;
      if (sent <= refusals) throw away();
    };
    const sleep = async (ms: number) => {
      waits.push(ms);
      now += ms;
    };
    return { send, sleep, waits, now: () => now, sent: () => sent };
  }

  it('waits out refusals, doubling its wait from 100 ms up to 5 s, and reports each', async () => {
    const s = scene(8);
    const refused: unknown[] = [];
    await untilAccepted(s.send, { stillOurs: () => true, now: s.now, sleep: s.sleep, onRefused: (e) => refused.push(e) });
    expect(s.sent()).toBe(9);
    expect(s.waits).toEqual([100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000]);
    expect(refused).toHaveLength(8);
  });

  it('gives up with the last refusal once the next try would begin past the patience', async () => {
    const s = scene(1_000);
    await expect(untilAccepted(s.send, { stillOurs: () => true, now: s.now, sleep: s.sleep })).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect(s.now()).toBeLessThanOrEqual(COMMIT_PATIENCE_MS);
    expect(s.now() + 5_000).toBeGreaterThan(COMMIT_PATIENCE_MS);
  });

  it('counts the time its sends take, not only its waits: refusals that each take a request time-out end it within the patience and one request', async () => {
    const s = scene(1_000, 30_000);
    await expect(untilAccepted(s.send, { stillOurs: () => true, now: s.now, sleep: s.sleep })).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect(s.sent()).toBe(1);
  });

  it('counts from when its operation began waiting, so an operation that commits several times waits one patience in all', async () => {
    const s = scene(1_000);
    await expect(untilAccepted(s.send, { stillOurs: () => true, now: s.now, since: -(COMMIT_PATIENCE_MS - 1_000), sleep: s.sleep })).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect(s.waits).toEqual([100, 200, 400]);
  });

  it('does not send again when the read between sends answers only after the patience ran out (no timer to bound it)', async () => {
    const s = scene(1_000);
    const slowRead = async () => {
      await Promise.resolve(); // the read is under way before its time passes
      await s.sleep(COMMIT_PATIENCE_MS + 10_000);
      return true;
    };
    await expect(untilAccepted(s.send, { stillOurs: () => true, now: s.now, sleep: s.sleep, stillValid: slowRead })).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect(s.sent()).toBe(1);
  });

  it('stops waiting once the partition is no longer its own (a rebalance or a failure dropped its state)', async () => {
    const s = scene(1_000);
    let ours = true;
    const sleep = async (ms: number) => {
      await s.sleep(ms);
      if (s.waits.length === 2) ours = false;
    };
    await expect(untilAccepted(s.send, { stillOurs: () => ours, now: s.now, sleep })).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect(s.sent()).toBe(2);
  });

  it('heartbeats after each wait, and stops waiting when the heartbeat says the member must rejoin', async () => {
    const s = scene(1_000);
    let beats = 0;
    const heartbeat = async () => {
      beats++;
      if (beats === 1) throw kafkajsProtocol('GROUP_LOAD_IN_PROGRESS'); // the coordinator away: waited on
      if (beats === 3) throw kafkajsProtocol('REBALANCE_IN_PROGRESS');
    };
    await expect(untilAccepted(s.send, { stillOurs: () => true, now: s.now, sleep: s.sleep, heartbeat })).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect({ beats, sent: s.sent() }).toEqual({ beats: 3, sent: 3 });
  });

  it('stops waiting when a heartbeat says kafkajs\'s coordinator moved (found again only by a rejoin)', async () => {
    const s = scene(1_000);
    const heartbeat = async () => {
      throw kafkajsProtocol('NOT_COORDINATOR_FOR_GROUP');
    };
    await expect(untilAccepted(s.send, { stillOurs: () => true, now: s.now, sleep: s.sleep, heartbeat })).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect(s.sent()).toBe(1);
  });

  it('does not send again over a commit that changed meanwhile (a topic created again took it): the refusal stands', async () => {
    const s = scene(1_000);
    await expect(untilAccepted(s.send, { stillOurs: () => true, now: s.now, sleep: s.sleep, stillValid: async () => false })).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect({ sent: s.sent(), waits: s.waits.length }).toEqual({ sent: 1, waits: 1 });
  });

  it('waits again without sending while it cannot tell whether the commit it was sent over is still there', async () => {
    const s = scene(1);
    const verdicts: (boolean | undefined)[] = [undefined, undefined, true];
    await untilAccepted(s.send, { stillOurs: () => true, now: s.now, sleep: s.sleep, stillValid: async () => verdicts.shift() });
    expect({ sent: s.sent(), waits: s.waits }).toEqual({ sent: 2, waits: [100, 200, 400] });
  });

  it('fails with the refusal, not the stop, when the consumer stops during a wait', async () => {
    const s = scene(1_000);
    const stopping = async () => {
      throw new Error('stop requested');
    };
    await expect(untilAccepted(s.send, { stillOurs: () => true, now: s.now, sleep: stopping })).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect(s.sent()).toBe(1);
  });

  it('sends once and fails at once on a refusal not worth waiting out, or without a way to wait', async () => {
    let sent = 0;
    const lostGeneration = async () => {
      sent++;
      throw kafkajsProtocol('ILLEGAL_GENERATION');
    };
    await expect(untilAccepted(lostGeneration, { stillOurs: () => true, now: () => 0, sleep: async () => {} })).rejects.toMatchObject({ type: 'ILLEGAL_GENERATION' });
    expect(sent).toBe(1);
    const noSleep = scene(1);
    await expect(untilAccepted(noSleep.send, { stillOurs: () => true, now: noSleep.now })).rejects.toMatchObject({ type: 'GROUP_LOAD_IN_PROGRESS' });
    expect(noSleep.sent()).toBe(1);
  });
});
