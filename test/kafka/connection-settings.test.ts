import { runCli } from '../../src/cli/program';
import { kafkaFromEnv } from '../../src/connection/kafka-connection';
import { passwordOf } from '../../scripts/kafka/broker';
import { bootstrapServers, terraformIn, terraformVars } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';

jest.setTimeout(120_000);

const settings = (user: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(),
  KAFKA_SASL_USERNAME: user,
  KAFKA_SASL_PASSWORD: passwordOf(user),
  KAFKA_SSL: 'false',
  ...extra,
});

async function krt(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await runCli(args, { cwd: REPO_ROOT, env, stdout: () => undefined, stderr: (t) => (stderr += t) });
  return { code, stderr };
}

describe('connecting krt dlq to a real broker', () => {
  it('names a missing group ACL, not a missing coordinator, when run as the wrong principal', async () => {
    // billing may write the DLQ, so it passes the topic check, but it may not use the replay group.
    const { code, stderr } = await krt(settings('billing'), 'dlq', 'inspect', 'billing-order-confirmed');
    expect(code).toBe(1);
    expect(stderr).toContain('Failed to find group coordinator: the broker names no coordinator for a group the principal may not use, so KAFKA_SASL_USERNAME=billing most likely lacks the group\'s ACLs; run krt dlq as the consumer\'s replay principal');
  });

  it('says to set KAFKA_SSL=false when it speaks TLS to a plaintext listener', async () => {
    const env = settings('orders-replay');
    delete env.KAFKA_SSL;
    const { code, stderr } = await krt(env, 'dlq', 'inspect', 'billing-order-confirmed');
    expect(code).toBe(1);
    expect(stderr).toMatch(/krt spoke TLS \(the default\) and the broker did not answer it; if the listener is plaintext \(SASL_PLAINTEXT\), set KAFKA_SSL=false\n$/);
  });

  it.each(['scram-sha-256', 'scram-sha256', 'SCRAM-SHA-512', 'scram-sha512'])('authenticates with KAFKA_SASL_MECHANISM=%s', async (mechanism) => {
    const admin = kafkaFromEnv(settings('orders-replay', { KAFKA_SASL_MECHANISM: mechanism })).admin();
    await admin.connect();
    try {
      expect((await admin.describeCluster()).brokers).toHaveLength(1);
    } finally {
      await admin.disconnect();
    }
  });

  it('refuses a mechanism it does not know, naming the ones it takes', async () => {
    const { code, stderr } = await krt(settings('orders-replay', { KAFKA_SASL_MECHANISM: 'gssapi' }), 'dlq', 'inspect', 'billing-order-confirmed');
    expect(code).toBe(2);
    expect(stderr).toBe("krt: KAFKA_SASL_MECHANISM must be plain, scram-sha-256 or scram-sha-512 (or scram-sha256, scram-sha512), not 'gssapi'\n");
  });
});

describe('the Terraform variable kafka_sasl_mechanism, on a real broker', () => {
  // A plan reads every topic and ACL through the provider: "no changes" means it authenticated.
  const plan = (mechanism: string) => terraformIn('orders', ['plan', '-lock=false', '-detailed-exitcode', ...terraformVars(), '-var', `kafka_sasl_mechanism=${mechanism}`]);

  it.each(['scram-sha-256', 'scram-sha512'])('takes %s and connects with it', (mechanism) => {
    const result = plan(mechanism);
    expect(result.output).toContain('No changes.');
    expect(result.code).toBe(0);
  });

  it('refuses a mechanism the provider does not know, naming the ones it takes', () => {
    const result = plan('gssapi');
    expect(result.code).toBe(1);
    expect(result.output).toContain('kafka_sasl_mechanism must be plain, scram-sha-256 or scram-sha-512.');
  });
});
