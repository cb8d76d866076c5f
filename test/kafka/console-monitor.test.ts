import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { passwordOf } from '../../scripts/kafka/broker';
import { exitWithin, spawnChild } from '../helpers/child-process';
import type { Child } from '../helpers/child-process';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, exampleModel, kafkaAsAdmin } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';

jest.setTimeout(300_000);

const run = `console-monitor-${randomBytes(3).toString('hex')}`;

/**
 * `krt console` as the topology's monitor principal, on the broker with the generated ACLs
 * enforced: every page reads, and replay and discard are off with the principal they need.
 */
describe('krt console as the monitor principal, on a real broker with ACLs enforced', () => {
  let billing: ConsumerModel;
  let console_: Child;
  let base: string;
  let cookie: string;
  let ids: string[];

  const get = async (url: string) => {
    const response = await fetch(`${base}${url}`, { headers: { cookie }, redirect: 'manual' });
    return { status: response.status, body: await response.text() };
  };
  const post = async (url: string, form: Record<string, string>) => {
    const response = await fetch(`${base}${url}`, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: base }, body: new URLSearchParams(form).toString(), redirect: 'manual' });
    return { status: response.status, body: await response.text() };
  };

  beforeAll(async () => {
    billing = (await exampleModel()).topologies.find((t) => t.name === 'orders')!.consumers[0]!;
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    const sent = await producer.send({
      topic: billing.dlq.name,
      acks: -1,
      messages: [1, 2, 3].map((i) => ({
        partition: 0,
        key: `${run}-${i}`,
        value: `${run}-${i}`,
        // A binary header value, as a Java producer may write one.
        headers: { [HEADERS.errorClass]: 'MonitorSeesError', [HEADERS.errorMessage]: `order ${i} is bad`, [HEADERS.originalTopic]: billing.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: String(i), [HEADERS.attempt]: '1', 'x-trace': Buffer.from([0xff, 0x00, 0xfe]) },
      })),
    });
    await producer.disconnect();
    const first = BigInt(sent[0]!.baseOffset!);
    ids = [0n, 1n, 2n].map((k) => `0:${first + k}`);

    console_ = spawnChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'console', '--port', '0', '--by', 'watcher'], {
      cwd: REPO_ROOT,
      env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: 'orders-monitor', KAFKA_SASL_PASSWORD: passwordOf('orders-monitor'), KAFKA_SSL: 'false' },
    });
    const url = await eventually('the console URL', () => {
      console_.assertRunning('krt console');
      return /(http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+)/.exec(console_.stdout()) ?? undefined;
    });
    base = url[1]!;
    const entry = await fetch(`${base}/?token=${url[2]}`, { redirect: 'manual' });
    cookie = entry.headers.get('set-cookie')!.split(';')[0]!;
  });

  afterAll(async () => {
    console_?.process.kill('SIGTERM');
    if (console_ && (await exitWithin(console_, 20_000)) === 'still running') throw new Error('krt console did not exit within 20 s of SIGTERM');
  });

  it('shows the overview with the backlog, not a refusal', async () => {
    const { status, body } = await get('/');
    expect(status).toBe(200);
    const row = body.split('<tr').find((r) => r.includes(`>${billing.name}<`))!;
    expect(row).toMatch(/<td class="num">\d+<\/td>/);
    expect(row).not.toContain('class="warn"');
  });

  it('shows the consumer page, its counts and groups, and a record with a binary header', async () => {
    const page = await get(`/consumers/${billing.name}?key=${run}`);
    expect(page.status).toBe(200);
    for (const id of ids) expect(page.body).toContain(`>${id}<`);
    expect(page.body).toContain('id="read-only"');
    const summary = await get(`/consumers/${billing.name}/summary?key=${run}`);
    expect(summary.body).toContain('id="matching">3<');
    expect(summary.body).toContain('MonitorSeesError');
    const record = await get(`/consumers/${billing.name}/records/${ids[0]}`);
    expect(record.status).toBe(200);
    expect(record.body).toContain(`${run}-1`);
    expect(record.body).toContain('x-trace');
  });

  it('shows the audit log', async () => {
    const { status, body } = await get(`/consumers/${billing.name}/audit`);
    expect(status).toBe(200);
    expect(body).toContain('id="audit"');
  });

  it('dry-runs, and refuses replay and discard with the principal they need', async () => {
    const page = await get(`/consumers/${billing.name}?key=${run}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    expect(page.body).toContain('not as orders-replay, the replay principal of orders');
    const dry = await post(`/consumers/${billing.name}/dry-run`, { csrf, scope: 'ids', ids: ids.join(',') });
    expect(dry.status).toBe(200);
    expect(dry.body).toContain('→ 3 records');
    expect(dry.body).not.toContain('id="replay-form"');
    for (const action of ['replay', 'discard']) {
      const refused = await post(`/consumers/${billing.name}/${action}`, { csrf, scope: 'ids', ids: ids[0]!, by: 'watcher', reason: 'no' });
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('restart krt console with its credentials to replay or discard');
    }
    // Nothing was handled: the three records are still there.
    expect((await get(`/consumers/${billing.name}/summary?key=${run}`)).body).toContain('id="matching">3<');
  });
});
