import { readBrokerInfo, restartBroker } from '../../scripts/kafka/broker';
import { eventually } from '../helpers/eventually';
import { restoreSuiteBroker, sleep, suiteBrokerDir } from '../helpers/suite-broker';
import { allRan, expectedRuns, firstRuns, hookedKafka, member, timedStop } from './attack48-fleet';
import type { Member } from './attack48-fleet';

jest.setTimeout(8 * 60_000);

/**
 * Attack 48: park-by-key on the Confluent client whose reader meets the broker down at its very
 * first read (the broker dies as the service comes up), or whose start() itself meets it down.
 *
 * Held (regression guards, 1 of 1 run each): killed at the reader's first read and back 52 s
 * later, the read failed within its 5 s, the operation was tried again paced, and after the
 * return every record of every key ran once in order, stop() in 19 ms. Down at start() and
 * started again at once (about 12 s), start() waited and resolved, all in order. (A broker away
 * for more than 30 s at start() makes start() reject, KafkaJSConnectionError: broker transport
 * failure, from the producer's connect: the client's metadata time-out; the reader plays no part,
 * as it opens only at the group consumer's connect, after the producer's.)
 */
describe('attack 48: the Confluent reader\u2019s first read in a broker outage', () => {
  it('loses nothing, keeps each key in order, pauses nothing for good, and stops in time (broker killed at the first read, 40 s)', async () => {
    const dir = suiteBrokerDir();
    const log: string[] = [];
    const t0 = Date.now();
    const at = (what: string) => log.push(`${Date.now() - t0} ${what}`);
    let killed: Promise<void> | undefined;
    let m: Member | undefined;
    try {
      m = await member(
        'a48-first-read',
        hookedKafka({
          beforeRead: (reader) => {
            at(`reader ${reader} reads`);
            if (killed !== undefined) return;
            process.kill(readBrokerInfo(dir)!.pid, 'SIGKILL');
            at('broker killed at the first read');
            killed = sleep(40_000).then(async () => {
              await restartBroker(dir);
              at('broker back');
            });
          },
        }),
      );
      await m.produce(1, 8);
      await m.consumer.start();
      at('started');
      await eventually('the first read', () => (killed === undefined ? undefined : true), 60_000);
      await killed;
      await m.produce(9, 12);
      const mm = m;
      await eventually('every record', () => (allRan(mm, 12) ? true : undefined), 4 * 60_000).catch((error: unknown) => at(String(error)));
      at(`handled: ${m.handled.join(' ')}`);
      expect(firstRuns(m)).toEqual(expectedRuns(12));
      const stopped = await timedStop(m.consumer);
      m = undefined;
      at(`stop: ${JSON.stringify(stopped)}`);
      expect(stopped).toEqual({ ms: expect.any(Number), outcome: 'stopped' });
      expect(stopped.ms).toBeLessThan(20_000);
    } finally {
      process.stdout.write(`${log.join('\n')}\nevents: ${m?.events.slice(-30).join(' | ')}\n`);
      await killed?.catch(() => undefined);
      await m?.consumer.stop().catch(() => undefined);
      await restoreSuiteBroker(dir);
    }
  });

  it('comes up once the broker is back, loses nothing and keeps order (broker down at start(), started again at once: about 12 s)', async () => {
    const dir = suiteBrokerDir();
    const log: string[] = [];
    const t0 = Date.now();
    const at = (what: string) => log.push(`${Date.now() - t0} ${what}`);
    let m: Member | undefined;
    let back: Promise<void> | undefined;
    try {
      m = await member('a48-down-start', hookedKafka({ beforeRead: (reader) => void at(`reader ${reader} reads`) }));
      await m.produce(1, 8);
      process.kill(readBrokerInfo(dir)!.pid, 'SIGKILL');
      at('broker killed before start()');
      back = sleep(0).then(async () => {
        await restartBroker(dir);
        at('broker back');
      });
      const started = await m.consumer.start().then(() => 'started', (error: unknown) => `start() refused: ${String(error).slice(0, 150)}`);
      at(started);
      await back;
      expect(started).toBe('started');
      await m.produce(9, 12);
      const mm = m;
      await eventually('every record', () => (allRan(mm, 12) ? true : undefined), 3 * 60_000).catch((error: unknown) => at(String(error)));
      at(`handled: ${m.handled.join(' ')}`);
      expect(firstRuns(m)).toEqual(expectedRuns(12));
      const stopped = await timedStop(m.consumer);
      m = undefined;
      at(`stop: ${JSON.stringify(stopped)}`);
      expect(stopped.outcome).toBe('stopped');
    } finally {
      process.stdout.write(`${log.join('\n')}\nevents: ${m?.events.slice(-30).join(' | ')}\n`);
      await back?.catch(() => undefined);
      await m?.consumer.stop().catch(() => undefined);
      await restoreSuiteBroker(dir);
    }
  });
});
