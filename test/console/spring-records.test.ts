import { buildConsoleServer } from '../../src/console/server';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import { sessionCookieHeader } from '../../src/console/auth';
import type { ProjectModel } from '../../src/model/types';
import { REPO_ROOT } from '../helpers/project';
import { springRetryTopicHeaders } from '../runtime/spring-bytes';
import { dlqRecord, fakeDlq } from './fake-dlq';

const TOKEN = 'test-session-token-0123456789';
const HOST = 'localhost:80';
const CONSUMER = 'billing-order-confirmed';
const MAIN_TS = 1_600_000_000_123;

let model: ProjectModel;
beforeAll(async () => {
  model = (await compileFiles(discoverTopologyFiles(REPO_ROOT), REPO_ROOT)).model!;
});

async function page(url: string): Promise<string> {
  const main = { topic: 'orders.confirmed', partition: 3, offset: 41, timestamp: MAIN_TS, group: 'billing-spring' };
  const records = [dlqRecord(0, 1, { key: 'order-1', value: 'v', headers: springRetryTopicHeaders(main, 3, MAIN_TS + 3_000) })];
  const app = buildConsoleServer({ topologies: model.topologies, dlq: fakeDlq(records), token: TOKEN, allowedHosts: new Set([HOST]), readOnlyReason: () => undefined, operator: 'ana' });
  return (await app.inject({ method: 'GET', url, headers: { host: HOST, cookie: sessionCookieHeader(TOKEN) } })).body;
}

describe("krt console on a DLT record written by Spring's @RetryableTopic", () => {
  it("shows the error Spring's listener wrapper names as its cause, with Spring's message and stack trace", async () => {
    const body = await page(`/consumers/${CONSUMER}/records/0:1`);
    expect(body).toContain('<td id="error-name">java.lang.IllegalStateException</td>');
    expect(body).toMatch(/<pre id="error-message"[^>]*>Listener failed; boom<\/pre>/);
    expect(body).toMatch(/<pre id="error-stack"[^>]*>org.springframework.kafka.listener.ListenerExecutionFailedException: Listener failed/);
  });

  it('says which main record it stands for, and when that record was written', async () => {
    const body = await page(`/consumers/${CONSUMER}/records/0:1`);
    expect(body).toContain('orders.confirmed[3]@41');
    expect(body).toContain('<td id="original-timestamp">2020-09-13T12:26:40.123Z</td>');
  });

  it('decodes the binary kafka_original-* and retry_topic-* headers beside their bytes', async () => {
    const body = await page(`/consumers/${CONSUMER}/records/0:1`);
    expect(body).toMatch(/kafka_original-offset<\/td><td class="mono">hex 0000000000000029<\/td><td>41<\/td>/);
    expect(body).toMatch(/kafka_original-timestamp<\/td><td class="mono">hex [0-9a-f]+<\/td><td>2020-09-13T12:26:40.123Z<\/td>/);
    expect(body).toMatch(/retry_topic-attempts<\/td><td class="mono">hex 00000003<\/td><td>3<\/td>/);
  });

  it('groups it on the summary by its cause and main topic, not as (none) from (unknown)', async () => {
    const body = await page(`/consumers/${CONSUMER}/summary`);
    expect(body).toMatch(/java.lang.IllegalStateException<\/a><\/td><td class="mono">orders.confirmed<\/td><td class="num">1</);
  });
});
