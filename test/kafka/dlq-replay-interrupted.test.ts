import path from 'node:path';
import { ADMIN_USER, passwordOf } from '../../scripts/kafka/broker';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { exitWithin, spawnChild } from '../helpers/child-process';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, kafkaAsAdmin } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';
import { scratchConsumer } from '../helpers/scratch-consumer';

jest.setTimeout(120_000);

/** A consumer of its own with `records` dead letters, as the admin. */
async function consumerWithDeadLetters(records: number): Promise<{ consumer: ConsumerModel; dir: string }> {
  const { consumer, dir } = await scratchConsumer({ name: 'replay', partitions: 1 });
  const producer = kafkaAsAdmin().producer();
  await producer.connect();
  await producer.send({
    topic: consumer.dlq.name,
    acks: -1,
    messages: Array.from({ length: records }, (_, i) => ({
      partition: 0,
      key: `order-${i}`,
      value: `order ${i}`,
      headers: { [HEADERS.originalTopic]: consumer.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.errorClass]: 'DownstreamTimeout', [HEADERS.attempt]: '1' },
    })),
  });
  await producer.disconnect();
  return { consumer, dir };
}

describe('krt dlq replay interrupted (Ctrl-C) while it replays', () => {
  /**
   * Found by attack 19: krt dlq replay handled no signal, so Ctrl-C ended it at once and its
   * committing member of the replay group sent no LeaveGroup. The broker kept that member for
   * its session timeout (30 s), and every krt dlq replay or discard of the consumer meanwhile
   * was refused as "another krt dlq command is replaying". Fixed: on SIGINT or SIGTERM the
   * session closes (leaves the group) before the process ends (cli/leave-on-signal.ts); the
   * member's idle fetch waits 100 ms, not kafkajs's 5 s, which its disconnect waited out past
   * the leave's deadline (seen in CI: 1 member left).
   */
  it('leaves the replay group as it ends, so the next replay is not refused for a session timeout', async () => {
    const { consumer, dir } = await consumerWithDeadLetters(20);
    const replay = spawnChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'dlq', 'replay', consumer.name, '--all', '--rate', '2', '--by', 'tester'], {
      cwd: dir,
      env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: ADMIN_USER, KAFKA_SASL_PASSWORD: passwordOf(ADMIN_USER), KAFKA_SSL: 'false' },
    });
    const admin = kafkaAsAdmin().admin();
    await admin.connect();
    try {
      const members = async () => (await admin.describeGroups([consumer.groups.replay])).groups[0]?.members.length ?? 0;
      // Under way: its committing member holds the lease.
      await eventually('the replay to hold the replay group', async () => {
        replay.assertRunning('krt dlq replay');
        return (await members()) > 0 ? true : undefined;
      });
      replay.process.kill('SIGINT');
      const exit = await exitWithin(replay, 15_000);
      expect({ exited: exit !== 'still running', members: await members() }).toEqual({ exited: true, members: 0 });
    } finally {
      await admin.disconnect();
    }
  });
});
