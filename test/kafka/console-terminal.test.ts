import { randomBytes } from 'node:crypto';
import { runCli } from '../../src/cli/program';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { passwordOf } from '../../scripts/kafka/broker';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, exampleModel, kafkaAs, kafkaAsAdmin } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';

jest.setTimeout(180_000);

const run = `terminal-${randomBytes(3).toString('hex')}`;
/** Clears the screen, prints a fake prompt line, hides text in an OSC 8 link, reverses what follows. */
const HOSTILE = `\u001b[2J\u001b[H\r\nfake: all clear\u001b]8;;https://evil.example/\u0007link\u001b]8;;\u0007 \u202Egnp.exe`;
const ESCAPED = '\\x1b[2J\\x1b[H\\x0d\\x0afake: all clear\\x1b]8;;https://evil.example/\\x07link\\x1b]8;;\\x07 \\u202egnp.exe';

const envAs = (user: string) => ({ ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: user, KAFKA_SASL_PASSWORD: passwordOf(user), KAFKA_SSL: 'false' });

async function krt(user: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { cwd: REPO_ROOT, env: envAs(user), stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** No control or bidi character reached the terminal, and the hostile text is there, escaped. */
function expectEscaped(output: string) {
  expect(output).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  expect(output).toContain(ESCAPED);
}

describe('krt dlq and krt lag show control and bidi characters of records and clients escaped', () => {
  let billing: ConsumerModel;
  let ids: string[];

  beforeAll(async () => {
    billing = (await exampleModel()).topologies.find((t) => t.name === 'orders')!.consumers[0]!;
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({
      topic: billing.dlq.name,
      acks: -1,
      messages: [1, 2].map((i) => ({
        partition: 0,
        key: `${run}-${i}${HOSTILE}`,
        value: `${run}-${i}`,
        headers: { [HEADERS.errorClass]: `${run}Error${HOSTILE}`, [HEADERS.errorMessage]: HOSTILE, [HEADERS.originalTopic]: billing.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: '1', [HEADERS.attempt]: '1' },
      })),
    });
    await producer.disconnect();
    const { stdout } = await krt('orders-replay', 'dlq', 'inspect', billing.name, '--json');
    ids = (JSON.parse(stdout).records as { id: string; value: string }[]).filter((r) => r.value.startsWith(run)).map((r) => r.id);
    expect(ids).toHaveLength(2);
  });

  it('inspect escapes them in keys, error names and messages, and --json keeps the exact bytes', async () => {
    const human = await krt('orders-replay', 'dlq', 'inspect', billing.name);
    expect(human.code).toBe(0);
    expectEscaped(human.stdout);
    const json = JSON.parse((await krt('orders-replay', 'dlq', 'inspect', billing.name, '--json')).stdout) as { records: { value: string; key: string; errorMessage: string }[] };
    const ours = json.records.find((r) => r.value === `${run}-1`)!;
    expect(ours.key).toBe(`${run}-1${HOSTILE}`);
    expect(ours.errorMessage).toBe(HOSTILE);
  });

  it('replay --dry-run escapes them', async () => {
    const { code, stdout } = await krt('orders-replay', 'dlq', 'replay', billing.name, '--ids', ids[0]!, '--dry-run');
    expect(code).toBe(0);
    expectEscaped(stdout);
  });

  it('discard escapes the reason it echoes', async () => {
    const { code, stdout } = await krt('orders-replay', 'dlq', 'discard', billing.name, '--ids', ids.join(','), '--reason', `test data${HOSTILE}`, '--by', 'tester');
    expect(code).toBe(0);
    expectEscaped(stdout);
  });

  it('lag escapes the client ids of group members', async () => {
    const member = kafkaAs('billing');
    const client = new (member.constructor as typeof import('kafkajs').Kafka)({
      clientId: `${run}${HOSTILE}`,
      brokers: bootstrapServers().split(','),
      sasl: { mechanism: 'plain', username: 'billing', password: passwordOf('billing') },
      logLevel: 0,
    }).consumer({ groupId: billing.groups.main });
    await client.connect();
    await client.subscribe({ topics: [billing.mainTopic.name] });
    let joined = false;
    client.on(client.events.GROUP_JOIN, () => (joined = true));
    await client.run({ eachMessage: async () => {} });
    try {
      await eventually('the member in the main group', () => (joined ? true : undefined), 60_000);
      const { code, stdout } = await krt('orders-monitor', 'lag', billing.name);
      expect(code).toBe(0);
      expectEscaped(stdout);
    } finally {
      await client.disconnect();
    }
  });
});
