import { pbkdf2 } from 'node:crypto';
import { ADMIN_USER, readBrokerInfo, restartBroker } from '../../scripts/kafka/broker';
import { confluentPort } from '../../src/runtime/adapters/confluent';
import { confluentKafka } from '../helpers/kafka';
import { restoreSuiteBroker, sleep, suiteBrokerDir } from '../helpers/suite-broker';

/** A read of a partition with no commit, as the adapter answers it. */
const NO_COMMIT = [{ partition: 0, offset: '-1', metadata: null }];

jest.setTimeout(5 * 60_000);

type Port = ReturnType<ReturnType<typeof confluentPort>['consumer']>;
const TOPIC = 'attack46-retire.main';
async function answered(port: Port): Promise<unknown> {
  let answer: unknown;
  for (let tries = 0; tries < 40 && !Array.isArray(answer); tries++) {
    answer = await port.committed(TOPIC, [0]).catch((error: unknown) => String(error));
    if (!Array.isArray(answer)) await sleep(250);
  }
  return answer;
}

/**
 * Attack 46: the reader retires a handle whose read failed by the consumer's disconnect, which
 * runs on the libuv thread pool (rd_kafka_consumer_close, then the destroy), where the plain
 * admin's disconnect ran at once on the event loop. With the pool held (other readers' connects,
 * each a 30 s metadata request during an outage; or the application's own pool work), a read
 * that timed out with the coordinator away keeps its handle alive while the broker comes back:
 * the abort the retiring was to prevent (rd_kafka_enq_once_del_source_return).
 *
 * Seen: SIGABRT in 2 of 4 runs (the application's pool work). Fixed: no admin request reads the
 * commits any more (rd_kafka_committed, never an admin coordinator request) and no reader is
 * retired on a failed read (confluent-group-reader.ts); the test stays as the scenario.
 */
describe('attack 46: a read timed out in an outage, its retiring held behind the thread pool, the broker back meanwhile', () => {
  it.each([
    ['other readers\u2019 connects', 'readers'],
    ['the application\u2019s own pool work', 'pool'],
  ])('the process lives on (%s)', async (_title, holder) => {
    const dir = suiteBrokerDir();
    const a = confluentPort(confluentKafka(ADMIN_USER)).consumer(`attack46-retire-a-${holder}`);
    const others = holder === 'readers' ? [1, 2, 3, 4].map((i) => confluentPort(confluentKafka(ADMIN_USER)).consumer(`attack46-retire-${i}`)) : [];
    const log: string[] = [];
    const t0 = Date.now();
    const at = (what: string) => log.push(`${Date.now() - t0} ${what}`);
    try {
      for (const port of [a, ...others]) expect(await answered(port)).toEqual(NO_COMMIT);
      process.kill(readBrokerInfo(dir)!.pid, 'SIGKILL');
      at('killed');
      await sleep(1_000);
      await Promise.all(others.map((port) => port.committed(TOPIC, [0]).catch(() => undefined)));
      at('others retired their readers');
      const aRead = a.committed(TOPIC, [0]).then(() => 'answered', (error: unknown) => String(error).slice(0, 80)).then((o) => void at(`a read: ${o}`));
      // A's read holds one pool thread (its poll, 5 s); the pool work then takes the others and queues one more, which takes A's thread when it times out.
      await sleep(holder === 'pool' ? 1_000 : 50);
      const holders =
        holder === 'readers'
          ? others.map((port) => port.committed(TOPIC, [0]).then(() => 'answered', (error: unknown) => String(error).slice(0, 60)).then((o) => void at(`other read: ${o}`)))
          : [1, 2, 3, 4].map(() => new Promise<void>((resolve) => pbkdf2('x', 'y', 60_000_000, 32, 'sha256', () => resolve(void at('pool job done')))));
      const restarted = restartBroker(dir).then(() => void at('broker answers again'));
      await Promise.all([aRead, restarted, ...holders]);
      await sleep(10_000);
      expect(await answered(a)).toEqual(NO_COMMIT);
      at('a answers again');
    } finally {
      process.stdout.write(`${log.join('\n')}\n`);
      for (const port of [a, ...others]) await port.disconnect().catch(() => undefined);
      await restoreSuiteBroker(dir);
    }
  });
});
