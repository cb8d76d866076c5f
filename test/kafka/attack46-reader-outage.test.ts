import { readdirSync } from 'node:fs';
import { ADMIN_USER, readBrokerInfo, restartBroker } from '../../scripts/kafka/broker';
import { confluentPort } from '../../src/runtime/adapters/confluent';
import { confluentKafka } from '../helpers/kafka';
import { restoreSuiteBroker, sleep, suiteBrokerDir } from '../helpers/suite-broker';

/** A read of a partition with no commit, as the adapter answers it. */
const NO_COMMIT = [{ partition: 0, offset: '-1', metadata: null }];

jest.setTimeout(6 * 60_000);

const threads = () => readdirSync('/proc/self/task').length;

/**
 * Attack 46: the Confluent reader (a consumer of the group that never subscribes) read every
 * 300 ms through a 45 s outage of the broker, as park-by-key's waits do. Each read during the
 * outage connects a new consumer (rd_kafka_new + a 30 s metadata request), whose failure is
 * passed on; the plain admin it replaced connected at once and failed after 5 s.
 *
 * Seen: each read took 30 s; four ports' reads held the libuv pool (a 1 ms pbkdf2 took 28 s).
 * Fixed: the reader connects with its port, is kept through failures, and reads through
 * rd_kafka_committed with its own 5 s time-out (confluent-group-reader.ts).
 */
describe('attack 46: the Confluent group reader through a long broker outage', () => {
  it('answers within the client time-out, leaks no threads, and disconnects promptly', async () => {
    const dir = suiteBrokerDir();
    const port = confluentPort(confluentKafka(ADMIN_USER)).consumer('attack46-reader-outage');
    const log: string[] = [];
    try {
      let answered: unknown;
      for (let tries = 0; tries < 40 && !Array.isArray(answered); tries++) {
        answered = await port.committed('attack46-reader-outage.main', [0]).catch((error: unknown) => String(error));
        if (!Array.isArray(answered)) await sleep(250);
      }
      expect(answered).toEqual(NO_COMMIT);
      const before = threads();
      process.kill(readBrokerInfo(dir)!.pid, 'SIGKILL');
      const outageEnds = Date.now() + 45_000;
      const durations: number[] = [];
      let peak = before;
      while (Date.now() < outageEnds) {
        const started = Date.now();
        const outcome = await port.committed('attack46-reader-outage.main', [0]).then(() => 'answered', (error: unknown) => String(error).slice(0, 120));
        durations.push(Date.now() - started);
        peak = Math.max(peak, threads());
        log.push(`${new Date().toISOString()} ${Date.now() - started} ms threads=${threads()} ${outcome}`);
        await sleep(300);
      }
      await restartBroker(dir);
      let after: unknown;
      for (let tries = 0; tries < 60 && !Array.isArray(after); tries++) {
        after = await port.committed('attack46-reader-outage.main', [0]).catch((error: unknown) => String(error));
        if (!Array.isArray(after)) await sleep(250);
      }
      log.push(`after restart: ${JSON.stringify(after)} threads=${threads()}`);
      await sleep(15_000);
      const settled = threads();
      const disconnectStarted = Date.now();
      await port.disconnect();
      const disconnectMs = Date.now() - disconnectStarted;
      await sleep(3_000);
      log.push(`before=${before} peak=${peak} settled=${settled} afterDisconnect=${threads()} disconnectMs=${disconnectMs}`);
      process.stdout.write(`${log.join('\n')}\n`);
      expect(after).toEqual(NO_COMMIT);
      // A read during the outage fails within the client's own time-out (5 s), as the plain admin's did.
      expect(Math.max(...durations)).toBeLessThan(10_000);
      expect(settled - before).toBeLessThan(5);
      expect(disconnectMs).toBeLessThan(10_000);
    } finally {
      process.stdout.write(`${log.join('\n')}\n`);
      await port.disconnect().catch(() => undefined);
      await restoreSuiteBroker(dir);
    }
  });
});


describe('attack 46: the Confluent group reader read back to back through a kill and an immediate restart', () => {
  it('lives through it and answers after', async () => {
    const dir = suiteBrokerDir();
    const port = confluentPort(confluentKafka(ADMIN_USER)).consumer('attack46-reader-burst');
    const outcomes: string[] = [];
    let reading = true;
    const reads = (async () => {
      while (reading) {
        const started = Date.now();
        const [a, b] = await Promise.all([
          port.committed('attack46-reader-burst.main', [0]).then((r) => JSON.stringify(r), (error: unknown) => String(error).slice(0, 60)),
          port.logStartOffsets!('attack46-reader-burst.main', [0]).then((r) => JSON.stringify(r), (error: unknown) => String(error).slice(0, 60)),
        ]);
        outcomes.push(`${new Date().toISOString()} ${Date.now() - started}ms ${a} / ${b}`);
      }
    })();
    try {
      await sleep(3_000);
      process.kill(readBrokerInfo(dir)!.pid, 'SIGKILL');
      await restartBroker(dir);
      await sleep(25_000);
      reading = false;
      await reads;
      process.stdout.write(`${outcomes.slice(-30).join('\n')}\n`);
      // The commits read again as none; the log start of a topic that does not exist is refused as such.
      expect(outcomes[outcomes.length - 1]).toContain(` ${JSON.stringify(NO_COMMIT)} / KafkaJSProtocolError: Broker: Unknown topic or partition`);
    } finally {
      reading = false;
      await port.disconnect().catch(() => undefined);
      await restoreSuiteBroker(dir);
    }
  });
});

describe('attack 46: Confluent group readers of four consumers in one process during an outage', () => {
  it('leave the libuv thread pool free: a pbkdf2 of a few ms still runs within 5 s', async () => {
    const dir = suiteBrokerDir();
    const { pbkdf2 } = await import('node:crypto');
    const pool = () => new Promise<number>((resolve) => {
      const started = Date.now();
      pbkdf2('x', 'y', 1_000, 32, 'sha256', () => resolve(Date.now() - started));
    });
    const ports = [1, 2, 3, 4].map((i) => confluentPort(confluentKafka(ADMIN_USER)).consumer(`attack46-pool-${i}`));
    const log: string[] = [];
    try {
      for (const port of ports) {
        let answered: unknown;
        for (let tries = 0; tries < 40 && !Array.isArray(answered); tries++) {
          answered = await port.committed('attack46-pool.main', [0]).catch((error: unknown) => String(error));
          if (!Array.isArray(answered)) await sleep(250);
        }
      }
      log.push(`pool before: ${await pool()} ms`);
      process.kill(readBrokerInfo(dir)!.pid, 'SIGKILL');
      await sleep(1_000);
      // Each port's first read fails and retires its reader; the next connects a new one.
      await Promise.all(ports.map((port) => port.committed('attack46-pool.main', [0]).catch(() => undefined)));
      const reads = ports.map((port) => port.committed('attack46-pool.main', [0]).catch((error: unknown) => String(error)));
      await sleep(2_000);
      const during = await pool();
      log.push(`pool during the readers' connects: ${during} ms`);
      await Promise.all(reads);
      process.stdout.write(`${log.join('\n')}\n`);
      expect(during).toBeLessThan(5_000);
    } finally {
      process.stdout.write(`${log.join('\n')}\n`);
      for (const port of ports) await port.disconnect().catch(() => undefined);
      await restoreSuiteBroker(dir);
    }
  });
});
