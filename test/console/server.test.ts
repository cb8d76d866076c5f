import type { FastifyInstance } from 'fastify';
import { csrfToken, sessionCookie, sessionCookieHeader } from '../../src/console/auth';
import { ANY_HOST, buildConsoleServer } from '../../src/console/server';
import { compileFiles } from '../../src/compile';
import { discoverTopologyFiles } from '../../src/load/load-topologies';
import type { ProjectModel } from '../../src/model/types';
import { HEADERS, SPRING_DLT_HEADERS } from '../../src/naming/headers';
import { REPO_ROOT } from '../helpers/project';
import { dlqRecord, fakeDlq } from './fake-dlq';

// Each test renders pages in process, well under a second alone; a machine with a load of 10 took
// a paging test past jest's default 5 s (session 55), so the suite allows what a shared CI runner may take.
jest.setTimeout(30_000);

const TOKEN = 'test-session-token-0123456789';
const HOST = 'localhost:80';
const cookie = sessionCookieHeader(TOKEN);
const CONSUMER = 'billing-order-confirmed';

let model: ProjectModel;
beforeAll(async () => {
  const result = await compileFiles(discoverTopologyFiles(REPO_ROOT), REPO_ROOT);
  model = result.model!;
});

const xHeaders = (errorClass: string, message: string, extra: Record<string, string | Buffer> = {}) => ({
  [HEADERS.attempt]: '4',
  [HEADERS.originalTopic]: 'orders.confirmed',
  [HEADERS.originalPartition]: '3',
  [HEADERS.originalOffset]: '42',
  [HEADERS.errorClass]: errorClass,
  [HEADERS.errorMessage]: message,
  ...extra,
});

/** Keys, values, headers and error texts as an attacker would write them. */
const HOSTILE = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(2)>',
  "' onmouseover='alert(3)",
  'javascript:alert(4)',
  '\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007 \u001b[2J',
  'invoice-\u202Efdp.exe',
];

function console_(records = [dlqRecord(0, 1, { key: 'k1', value: '{"a":1}', headers: xHeaders('OrderValidationError', 'bad total') })], readOnly?: string) {
  const dlq = fakeDlq(records);
  const app = buildConsoleServer({ topologies: model.topologies, dlq, token: TOKEN, allowedHosts: new Set([HOST]), readOnlyReason: () => readOnly, operator: 'ana' });
  return { app, dlq };
}

async function get(app: FastifyInstance, url: string, headers: Record<string, string> = { cookie }) {
  return app.inject({ method: 'GET', url, headers: { host: HOST, ...headers } });
}

async function post(app: FastifyInstance, url: string, form: Record<string, string>, headers: Record<string, string> = { cookie }) {
  return app.inject({ method: 'POST', url, headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded', 'hx-request': 'true', ...headers }, payload: new URLSearchParams(form).toString() });
}

/** Until the background action has acted. */
async function eventuallyIdle(dlq: { acted: unknown[] }): Promise<void> {
  for (let i = 0; i < 100 && dlq.acted.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('krt console: the session token guards every request', () => {
  it('refuses a request without the token, with the way in', async () => {
    const { app } = console_();
    for (const url of ['/', `/consumers/${CONSUMER}`, '/assets/htmx.min.js', `/consumers/${CONSUMER}/audit`]) {
      const response = await get(app, url, {});
      expect(response.statusCode).toBe(401);
      expect(response.body).toContain('the URL krt console printed at start (it ends in ?token');
      expect(response.body).not.toContain(TOKEN);
    }
  });

  it('refuses a wrong token, in the query or in the cookie', async () => {
    const { app } = console_();
    expect((await get(app, '/?token=guess', {})).statusCode).toBe(401);
    expect((await get(app, '/', { cookie: `${sessionCookie(TOKEN).name}=guess` })).statusCode).toBe(401);
  });

  it('trades the token in the URL for an HttpOnly, SameSite=Strict cookie and takes it out of the address bar', async () => {
    const { app } = console_();
    const response = await get(app, `/consumers/${CONSUMER}?error=X&token=${TOKEN}`, {});
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/consumers/${CONSUMER}?error=X`);
    expect(String(response.headers['set-cookie'])).toBe(`${sessionCookieHeader(TOKEN)}; Path=/; HttpOnly; SameSite=Strict`);
    // The cookie never holds the token itself.
    expect(String(response.headers['set-cookie'])).not.toContain(TOKEN);
    expect((await get(app, `/consumers/${CONSUMER}`)).statusCode).toBe(200);
  });

  it('answers only to its own host name, so a DNS-rebinding page cannot reach it even with the cookie', async () => {
    const { app } = console_();
    const response = await app.inject({ method: 'GET', url: '/', headers: { host: 'evil.example:80', cookie } });
    expect(response.statusCode).toBe(421);
  });

  it('answers to any host name when bound to every address, still only with the token', async () => {
    const app = buildConsoleServer({ topologies: model.topologies, dlq: fakeDlq([]), token: TOKEN, allowedHosts: new Set([ANY_HOST]), readOnlyReason: () => undefined });
    expect((await app.inject({ method: 'GET', url: '/', headers: { host: 'console.internal:8686', cookie } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/', headers: { host: 'console.internal:8686' } })).statusCode).toBe(401);
  });

  it('sends a strict Content-Security-Policy and no referrer on every page', async () => {
    const { app } = console_();
    const response = await get(app, `/consumers/${CONSUMER}`);
    expect(response.headers['content-security-policy']).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.body).not.toMatch(/<script>|<script(?![^>]*src="\/assets\/htmx\.min\.js")|style="|\son[a-z]+=/i);
  });
});

describe('krt console: mutating requests need the CSRF token and an operator', () => {
  const form = (extra: Record<string, string> = {}) => ({ scope: 'ids', ids: '0:1', by: 'ana', rate: '5', ...extra });

  it('refuses a replay without the CSRF token, or with a wrong one, and publishes nothing', async () => {
    const { app, dlq } = console_();
    for (const csrf of [undefined, 'wrong', TOKEN]) {
      const response = await post(app, `/consumers/${CONSUMER}/replay`, csrf === undefined ? form() : form({ csrf }));
      expect(response.body).toContain('CSRF token missing or wrong');
    }
    expect(dlq.acted).toEqual([]);
  });

  it('refuses a form posted from another site even with the right CSRF token', async () => {
    const { app, dlq } = console_();
    const response = await post(app, `/consumers/${CONSUMER}/discard`, form({ csrf: csrfToken(TOKEN), reason: 'x' }), { cookie, origin: 'http://evil.example' });
    expect(response.body).toContain('other origins are refused');
    expect(dlq.acted).toEqual([]);
  });

  it('refuses a replay or discard without the operator name, and a discard without a reason', async () => {
    const { app, dlq } = console_();
    const csrf = csrfToken(TOKEN);
    expect((await post(app, `/consumers/${CONSUMER}/replay`, form({ csrf, by: ' ' }))).body).toContain('say who you are');
    expect((await post(app, `/consumers/${CONSUMER}/discard`, form({ csrf }))).body).toContain('a discard needs a reason');
    expect(dlq.acted).toEqual([]);
  });

  it('replays with the CSRF token and the name, and ends with the audit entry it wrote', async () => {
    const { app, dlq } = console_();
    const started = await post(app, `/consumers/${CONSUMER}/replay`, form({ csrf: csrfToken(TOKEN) }));
    const jobUrl = /hx-get="(\/jobs\/[^"]+)"/.exec(started.body)?.[1] ?? /id="job-done"/.exec(started.body)?.[0];
    expect(jobUrl).toBeDefined();
    let body = started.body;
    for (let i = 0; i < 20 && !body.includes('job-done'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      body = (await get(app, jobUrl!)).body;
    }
    expect(body).toContain('Replayed 1 record');
    expect(body).toMatch(/<td>replayed<\/td><td class="mono">0:1<\/td><td>ana<\/td>/);
    expect(dlq.acted).toEqual([{ action: 'replayed', ids: ['0:1'], by: 'ana' }]);
  });

  it('refuses replay and discard when read-only, and says why on the dry run', async () => {
    const { app, dlq } = console_(undefined, 'started as orders-monitor');
    const csrf = csrfToken(TOKEN);
    expect((await post(app, `/consumers/${CONSUMER}/replay`, form({ csrf }))).body).toContain('read-only: started as orders-monitor');
    const dryRun = await post(app, `/consumers/${CONSUMER}/dry-run`, { csrf, scope: 'ids', ids: '0:1' });
    expect(dryRun.body).toContain('Read-only: started as orders-monitor');
    expect(dryRun.body).not.toContain('replay-form');
    expect(dlq.acted).toEqual([]);
  });
});

describe('krt console: record bytes render as inert text', () => {
  const hostileRecords = () =>
    HOSTILE.map((text, i) =>
      dlqRecord(0, 10 + i, {
        key: text,
        value: text,
        headers: xHeaders(text, text, { [text.replace(/[^\x21-\x7e]/g, '_')]: text, [SPRING_DLT_HEADERS.exceptionStacktrace]: text }),
      }),
    );

  /** No tag, attribute, link or terminal control of the payloads reached the markup. */
  function expectInert(body: string) {
    expect(body).not.toMatch(/<script>alert|<img|onerror=|onmouseover=|href="javascript:/i);
    expect(body).not.toContain('\u001b');
    expect(body).not.toContain('\u202e');
    expect(body).not.toContain('\u0007');
  }

  it('escapes script tags, attribute breakouts and javascript: links in the list, the groups and the filter form', async () => {
    const { app } = console_(hostileRecords());
    const body = (await get(app, `/consumers/${CONSUMER}?key=${encodeURIComponent('"><img')}`)).body;
    expectInert(body);
    expect(body).toContain('&quot;&gt;&lt;img src&#61;x onerror&#61;alert(2)&gt;');
    const all = (await get(app, `/consumers/${CONSUMER}`)).body;
    expectInert(all);
    expect(all).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(all).toContain('javascript:alert(4)');
    // The groups and the error names of the filter's choice come with the counts.
    const summary = (await get(app, `/consumers/${CONSUMER}/summary`)).body;
    expectInert(summary);
    expect(summary).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(summary).toContain('&quot;&gt;&lt;img src&#61;x onerror&#61;alert(2)&gt;');
  });

  it('shows ESC and bidi-override characters as escapes on the record page, in key, value, error and every header', async () => {
    const { app } = console_(hostileRecords());
    for (let i = 0; i < HOSTILE.length; i++) {
      const body = (await get(app, `/consumers/${CONSUMER}/records/0:${10 + i}`)).body;
      expect(body).not.toBe('');
      expectInert(body);
    }
    const osc = (await get(app, `/consumers/${CONSUMER}/records/0:14`)).body;
    expect(osc).toContain('\\x1b]8;;https://evil.example/\\x07click');
    const bidi = (await get(app, `/consumers/${CONSUMER}/records/0:15`)).body;
    expect(bidi).toContain('invoice-\\u202efdp.exe');
  });

  it('escapes the payloads in the dry run, the action result and the audit log', async () => {
    const { app } = console_(hostileRecords());
    const csrf = csrfToken(TOKEN);
    const dryRun = await post(app, `/consumers/${CONSUMER}/dry-run`, { csrf, scope: 'filter', limit: '100' });
    expectInert(dryRun.body);
    expect(dryRun.body).toContain(`${HOSTILE.length} records`);
    await post(app, `/consumers/${CONSUMER}/discard`, { csrf, scope: 'ids', ids: '0:10,0:11', by: '<b>mallory</b>', reason: '"><script>x</script>' });
    const audit = (await get(app, `/consumers/${CONSUMER}/audit`)).body;
    expectInert(audit);
    expect(audit).toContain('&lt;b&gt;mallory&lt;/b&gt;');
    expect(audit).not.toContain('<script>x');
  });
});

describe('krt console: pages', () => {
  it('shows a value as pretty JSON, text, or hex when it is binary, and decodes our headers and Spring\'s', async () => {
    const records = [
      dlqRecord(1, 5, { key: 'order-7', value: '{"order":7,"total":-3}', headers: xHeaders('OrderValidationError', 'total below zero', { [HEADERS.firstFailedAt]: '1764583200000', [SPRING_DLT_HEADERS.originalPartition]: Buffer.from([0, 0, 0, 3]), [SPRING_DLT_HEADERS.exceptionStacktrace]: 'at Billing.check(Billing.java:42)' }) }),
      dlqRecord(1, 6, { key: null, value: Buffer.from([0xff, 0x00, 0x41, 0xfe]), headers: xHeaders('DecodeError', 'not UTF-8') }),
      // Confluent's wire format around JSON: every byte UTF-8, the framing still binary.
      dlqRecord(1, 7, { key: null, value: Buffer.concat([Buffer.from([0, 0, 0, 0, 9]), Buffer.from('{"a":1}')]), headers: xHeaders('DeserializationError', 'unknown schema') }),
    ];
    const { app } = console_(records);
    const json = (await get(app, `/consumers/${CONSUMER}/records/1:5`)).body;
    expect(json).toContain('JSON, pretty-printed');
    expect(json).toContain('{\n  &quot;order&quot;: 7,\n  &quot;total&quot;: -3\n}');
    expect(json).toContain('2025-12-01T10:00:00.000Z');
    expect(json).toMatch(/kafka_dlt-original-partition<\/td><td class="mono">hex 00000003<\/td><td>3<\/td>/);
    expect(json).toContain('at Billing.check(Billing.java:42)');
    const binary = (await get(app, `/consumers/${CONSUMER}/records/1:6`)).body;
    expect(binary).toContain('binary, as hex');
    expect(binary).toContain('00000000  ff 00 41 fe');
    const framed = (await get(app, `/consumers/${CONSUMER}/records/1:7`)).body;
    expect(framed).toContain('Schema Registry schema id 9, as hex');
    expect(framed).toContain('00000000  00 00 00 00 09 7b 22 61 22 3a 31 7d');
  });

  it('groups by error name and original topic and filters by error name, key, header text and time', async () => {
    const records = [
      dlqRecord(0, 1, { key: 'a-1', value: 'x', headers: xHeaders('OrderValidationError', 'm'), timestamp: Date.parse('2026-12-01T10:00:00Z') }),
      dlqRecord(0, 2, { key: 'b-2', value: 'x', headers: xHeaders('OrderValidationError', 'm', { tenant: 'acme' }), timestamp: Date.parse('2026-12-01T11:00:00Z') }),
      dlqRecord(0, 3, { key: 'a-3', value: 'x', headers: xHeaders('TimeoutError', 'm'), timestamp: Date.parse('2026-12-01T12:00:00Z') }),
    ];
    const { app } = console_(records);
    const count = async (query: string) => /id="matching">(\d+)</.exec((await get(app, `/consumers/${CONSUMER}/summary${query}`)).body)?.[1];
    expect(await count('')).toBe('3');
    expect(await count('?error=OrderValidationError')).toBe('2');
    expect(await count('?key=a-')).toBe('2');
    expect(await count('?header=acme')).toBe('1');
    expect(await count('?from=2026-12-01T10:30&to=2026-12-01T11:30')).toBe('1');
    const page = (await get(app, `/consumers/${CONSUMER}/summary`)).body;
    expect(page).toMatch(/OrderValidationError<\/a><\/td><td class="mono">orders.confirmed<\/td><td class="num">2<\/td><td>2026-12-01T10:00:00.000Z<\/td><td>2026-12-01T11:00:00.000Z/);
  });

  it('dry-runs a group and says where each record would be published', async () => {
    const records = [dlqRecord(0, 1, { key: 'a', value: 'x', headers: xHeaders('OrderValidationError', 'm') }), dlqRecord(0, 2, { key: 'b', value: 'x', headers: xHeaders('TimeoutError', 'm') })];
    const { app } = console_(records);
    const body = (await post(app, `/consumers/${CONSUMER}/dry-run`, { csrf: csrfToken(TOKEN), scope: 'group', group_error: 'TimeoutError', group_topic: 'orders.confirmed', limit: '10' })).body;
    expect(body).toContain('→ 1 record');
    expect(body).toContain('<td class="mono">0:2</td><td class="mono">orders.confirmed[3]</td>');
    expect(body).toContain('A replay publishes these 1 records to orders.confirmed');
  });

  it('pages through a DLQ by offset, fifty records at a time, reading no further than the page', async () => {
    const records = [0, 1, 2].flatMap((partition) => Array.from({ length: 4000 }, (_, offset) => dlqRecord(partition, offset, { key: `k${partition}-${offset}`, value: 'v', headers: xHeaders('E', 'm') })));
    const { app, dlq } = console_(records);
    const first = (await get(app, `/consumers/${CONSUMER}`)).body;
    expect(first).toContain('50 records');
    expect(first).toContain('>0:49<');
    // Fifty-one of partition 0 fill the page; the other partitions stop as soon as it is full.
    expect(dlq.lastRead).toBeLessThanOrEqual(51 * 3);
    const next = /href="([^"]+)" id="next-page"/.exec(first)![1]!.replace(/&amp;/g, '&').replace(/&#61;/g, '=');
    expect(next).toBe(`/consumers/${CONSUMER}?after=0%3A49`);
    const second = (await get(app, next)).body;
    expect(second).toContain('50 records after 0:49');
    expect(second).toContain('>0:50<');
    expect(second).not.toContain('>0:49<');
    expect(dlq.lastRead).toBeLessThanOrEqual(51 * 3);
    const across = (await get(app, `/consumers/${CONSUMER}?after=0%3A3979`)).body;
    expect(across).toContain('>0:3999<');
    expect(across).toContain('>1:29<');
    expect(across).not.toContain('>1:30<');
    const last = (await get(app, `/consumers/${CONSUMER}?after=2%3A3949`)).body;
    expect(last).toContain('50 records after 2:3949');
    expect(last).not.toContain('id="next-page"');
    // A page past the end (the DLQ was replayed meanwhile) says so, with the way back.
    const past = (await get(app, `/consumers/${CONSUMER}?after=2%3A5000`)).body;
    expect(past).toContain('no records after 2:5000');
    expect(past).toContain('first page');
    expect(dlq.mostKept).toBeLessThanOrEqual(51 * 3);
    await get(app, '/');
    expect(dlq.lastRead).toBeLessThanOrEqual(3);
    await post(app, `/consumers/${CONSUMER}/dry-run`, { csrf: csrfToken(TOKEN), scope: 'filter', limit: '100' });
    expect(dlq.mostKept).toBeLessThanOrEqual(100 * 3);
  });

  it('loads the counts after the page, and counts again only what the DLQ gained since, unless something was handled', async () => {
    const records = Array.from({ length: 300 }, (_, offset) => dlqRecord(offset % 3, Math.floor(offset / 3), { key: `k${offset}`, value: 'v', headers: xHeaders(offset % 2 ? 'E1' : 'E2', 'm') }));
    const { app, dlq } = console_(records);
    const page = (await get(app, `/consumers/${CONSUMER}`)).body;
    expect(page).not.toContain('id="unhandled"');
    expect(page).toContain(`hx-get="/consumers/${CONSUMER}/summary" hx-trigger="load"`);
    const unhandled = (body: string) => /id="unhandled">(\d+)</.exec(body)?.[1];
    const summary = (await get(app, `/consumers/${CONSUMER}/summary`)).body;
    expect(unhandled(summary)).toBe('300');
    expect(summary).toContain('<option value="E1">E1</option>');
    expect(dlq.lastRead).toBe(300);
    // The DLQ grows while the operator pages: the next count reads the new records alone, and
    // the last record it counted of each of the 3 partitions again (to know the log is the same one).
    records.push(...[0, 1, 2].map((p) => dlqRecord(p, 100, { key: 'late', value: 'v', headers: xHeaders('E3', 'm') })));
    expect(unhandled((await get(app, `/consumers/${CONSUMER}/summary`)).body)).toBe('303');
    expect(dlq.lastRead).toBe(3 + 3);
    expect(unhandled((await get(app, `/consumers/${CONSUMER}/summary`)).body)).toBe('303');
    expect(dlq.lastRead).toBe(3);
    // A discard changes the handled state: everything is counted again.
    await post(app, `/consumers/${CONSUMER}/discard`, { csrf: csrfToken(TOKEN), scope: 'ids', ids: '0:100', by: 'ana', reason: 'test' });
    await eventuallyIdle(dlq);
    expect(unhandled((await get(app, `/consumers/${CONSUMER}/summary`)).body)).toBe('302');
    expect(dlq.lastRead).toBe(302);
  });

  it('lists records of 10 MB values holding a preview of each, and shows the one asked for in full (first 64 KiB)', async () => {
    const huge = Buffer.alloc(10 * 2 ** 20, 'x');
    const records = [0, 1, 2].flatMap((partition) => Array.from({ length: 60 }, (_, offset) => dlqRecord(partition, offset, { key: `k${offset}`, value: huge, headers: xHeaders('E', 'm'.repeat(2 ** 20)) })));
    const { app, dlq } = console_(records);
    const page = await get(app, `/consumers/${CONSUMER}`);
    expect(page.body).toContain('>0:49<');
    expect(page.body.length).toBeLessThan(200_000);
    const dry = await post(app, `/consumers/${CONSUMER}/dry-run`, { csrf: csrfToken(TOKEN), scope: 'filter', limit: '100' });
    expect(dry.body).toContain('→ 100 records');
    // At most 100 records of each partition, 1 KiB of each.
    expect(dlq.mostHeldBytes).toBeLessThan(300 * 2 * 1024);
    const record = (await get(app, `/consumers/${CONSUMER}/records/1:7`)).body;
    expect(record).toContain('10485760 bytes');
    expect(record).toContain('first 64 KiB shown');
  });

  it('a dry run of ticked records reads their partitions from the lowest id to the highest, no more', async () => {
    const records = [0, 1, 2].flatMap((partition) => Array.from({ length: 1000 }, (_, offset) => dlqRecord(partition, offset, { key: `k${offset}`, value: 'v', headers: xHeaders('E', 'm') })));
    const { app, dlq } = console_(records);
    const dry = await post(app, `/consumers/${CONSUMER}/dry-run`, { csrf: csrfToken(TOKEN), scope: 'ids', ids: '1:500,1:510' });
    expect(dry.body).toContain('→ 2 records');
    expect(dlq.lastRead).toBeLessThanOrEqual(11);
    const refused = await post(app, `/consumers/${CONSUMER}/dry-run`, { csrf: csrfToken(TOKEN), scope: 'filter', limit: '1000000' });
    expect(refused.body).toContain('at most 10000 records at a time');
  });

  it('never sends the SASL password to the browser', async () => {
    const { app } = console_();
    const bodies = await Promise.all(['/', `/consumers/${CONSUMER}`, `/consumers/${CONSUMER}/records/0:1`, `/consumers/${CONSUMER}/audit`].map(async (url) => (await get(app, url)).body));
    for (const body of bodies) expect(body).not.toMatch(/-secret|password/i);
  });
});
