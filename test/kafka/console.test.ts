import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium as playwright } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { consumerDescriptor } from '../../src/model/consumer-descriptor';
import type { ConsumerModel } from '../../src/model/types';
import { HEADERS } from '../../src/naming/headers';
import { kafkajsPort } from '../../src/runtime/adapters/kafkajs';
import { createRetryingConsumer } from '../../src/runtime/retrying-consumer';
import type { RetryingConsumer } from '../../src/runtime/retrying-consumer';
import { passwordOf } from '../../scripts/kafka/broker';
import { exitWithin, spawnChild } from '../helpers/child-process';
import type { Child } from '../helpers/child-process';
import { eventually } from '../helpers/eventually';
import { bootstrapServers, exampleModel, kafkaAs, kafkaAsAdmin } from '../helpers/kafka';
import { REPO_ROOT } from '../helpers/project';
import { chromium } from '../helpers/tools';

jest.setTimeout(300_000);

/** Every record of this run carries it in its key, so the test reads only its own among other suites'. */
const run = `console-${randomBytes(3).toString('hex')}`;
/** The screenshots of docs/console.md: rewritten with UPDATE_SCREENSHOTS=1 (as UPDATE_GOLDEN=1 rewrites goldens), else taken into a scratch folder. */
const IMAGES = process.env.UPDATE_SCREENSHOTS === '1' ? path.join(REPO_ROOT, 'docs', 'images') : mkdtempSync(path.join(os.tmpdir(), 'krt-console-screenshots-'));

class OrderValidationError extends Error {
  override name = 'OrderValidationError';
}

/** Bytes an attacker controls, as they reach a DLQ: markup, an OSC 8 link, a bidi override. */
const HOSTILE = {
  key: `${run}-hostile-<script>alert("key")</script>`,
  value: `{"note":"\"><img src=x onerror=alert('value')>","shell":"\u001b[2J\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007"}`,
  errorClass: '<img src=x onerror=alert(1)>',
  errorMessage: `javascript:alert(2) invoice-\u202Efdp.exe \u001b[31mred\u001b[0m`,
};

describe('krt console in Debian\'s Chromium, on a real broker, as the replay principal', () => {
  let billing: ConsumerModel;
  let consumer: RetryingConsumer;
  let console_: Child;
  let browser: BrowserContext;
  let page: Page;
  let url: string;
  let profile: string;
  const processed = new Map<string, number>();
  const alerts: string[] = [];
  const cspViolations: string[] = [];

  beforeAll(async () => {
    billing = (await exampleModel()).topologies.find((t) => t.name === 'orders')!.consumers[0]!;
    // Three orders the handler refuses: the runtime dead-letters them. Replayed, they pass, and are counted.
    consumer = createRetryingConsumer(consumerDescriptor(billing), {
      kafka: kafkajsPort(kafkaAs('billing')),
      handler: async (record) => {
        const value = record.message.value?.toString() ?? '';
        if (!value.startsWith(run)) return;
        if (record.message.headers?.[HEADERS.replayedFromDlq] === undefined) throw new OrderValidationError(`order ${value} has a negative total`);
        processed.set(value, (processed.get(value) ?? 0) + 1);
      },
    });
    await consumer.start();
    const producer = kafkaAsAdmin().producer();
    await producer.connect();
    await producer.send({ topic: billing.mainTopic.name, acks: -1, messages: [1, 2, 3].map((i) => ({ key: `${run}-order-${i}`, value: `${run}-${i}` })) });
    // Two records written straight into the DLQ by someone hostile.
    await producer.send({
      topic: billing.dlq.name,
      acks: -1,
      messages: [1, 2].map((i) => ({
        key: `${HOSTILE.key}-${i}`,
        value: HOSTILE.value,
        headers: { [HEADERS.errorClass]: HOSTILE.errorClass, [HEADERS.errorMessage]: HOSTILE.errorMessage, [HEADERS.originalTopic]: billing.mainTopic.name, [HEADERS.originalPartition]: '0', [HEADERS.originalOffset]: '1', [HEADERS.attempt]: '1', 'x-tenant\u202e': '<b>acme</b>' },
      })),
    });
    await producer.disconnect();

    console_ = spawnChild(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'main.js'), 'console', '--port', '0', '--by', 'e2e-operator'], {
      cwd: REPO_ROOT,
      env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrapServers(), KAFKA_SASL_USERNAME: 'orders-replay', KAFKA_SASL_PASSWORD: passwordOf('orders-replay'), KAFKA_SSL: 'false' },
    });
    url = await eventually('the console URL', () => {
      console_.assertRunning('krt console');
      return /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(console_.stdout())?.[1];
    });
    profile = mkdtempSync(path.join(os.tmpdir(), 'krt-chromium-'));
    // A fresh profile: Playwright passes it to Chromium as --user-data-dir.
    browser = await playwright.launchPersistentContext(profile, {
      executablePath: chromium(),
      viewport: { width: 1360, height: 900 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.on('dialog', (dialog) => {
      alerts.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
    page.setDefaultTimeout(90_000);
  });

  afterAll(async () => {
    // Each part is stopped whatever the others do: a console that did not exit once kept the consumer running past the suite.
    await browser?.close().catch(() => undefined);
    console_?.process.kill('SIGTERM');
    const exit = console_ ? await exitWithin(console_, 20_000) : undefined;
    await consumer?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
    if (exit === 'still running') throw new Error('krt console did not exit within 20 s of SIGTERM');
  });

  it('refuses a request without the token', async () => {
    // First, before the browser has the token's cookie.
    const response = await page.goto(url.replace(/\?token=.*$/, ''));
    expect(response?.status()).toBe(401);
    expect(await page.textContent('body')).toContain('open the URL krt console printed at start');
  });

  it('opens on the overview, which lists the consumer with its backlog, runbook and dashboard', async () => {
    await eventually('the three orders in the DLQ', async () => {
      await page.goto(url);
      const row = page.locator('#overview tr', { hasText: 'billing-order-confirmed' });
      return Number(await row.locator('td.num').first().textContent()) >= 5 ? true : undefined;
    }, 120_000);
    expect(page.url()).not.toContain('token=');
    const row = page.locator('#overview tr', { hasText: 'billing-order-confirmed' });
    expect(await row.locator('a', { hasText: 'inspect the DLQ' }).getAttribute('href')).toMatch(/billing-order-confirmed\.md#inspect-the-dlq$/);
    expect(await row.textContent()).toContain('Kafka retry: orders');
    await page.screenshot({ path: path.join(IMAGES, 'console-overview.png') });
  });

  it('filters the class, dry-runs it, replays three records, shows the audit entries, and the consumer processes each once', async () => {
    await row('billing-order-confirmed').locator('a').first().click();
    await page.selectOption('select[name=error]', 'OrderValidationError');
    await page.fill('input[name=key]', run);
    await page.click('#filter button[type=submit]');
    await page.waitForURL(/error=OrderValidationError/);
    expect(await page.textContent('#matching')).toBe('3');
    await page.screenshot({ path: path.join(IMAGES, 'console-consumer.png'), fullPage: true });

    await page.click('text=Dry run the whole filter result');
    const dryRun = page.locator('#dry-run');
    await dryRun.waitFor();
    expect(await dryRun.locator('tbody tr').count()).toBe(3);
    // The sentence above the button names the topic each line of the dry run goes to, as `krt dlq replay` would send it.
    const destination = (await dryRun.locator('tbody tr td:nth-child(2)').first().textContent())!.replace(/\[.*$/, '');
    expect(await page.textContent('#route')).toMatch(new RegExp(`^A replay publishes these 3 records .*${destination.replace(/\./g, '\\.')}`));
    await page.screenshot({ path: path.join(IMAGES, 'console-dry-run.png'), fullPage: true });

    await page.fill('#replay-form input[name=rate]', '5');
    await page.click('#replay-form button[type=submit]');
    await page.locator('#job-done').waitFor();
    expect(await page.textContent('#job-done')).toContain('Replayed 3 records');
    const entries = page.locator('#job-audit tbody tr');
    expect(await entries.count()).toBe(3);
    expect(await entries.allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/replayed.*e2e-operator/)]));
    await page.screenshot({ path: path.join(IMAGES, 'console-replay.png'), fullPage: true });

    await eventually('each replayed order processed', () => (processed.size === 3 ? true : undefined), 60_000);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect([...processed.entries()].sort()).toEqual([1, 2, 3].map((i) => [`${run}-${i}`, 1]));
  });

  it('renders hostile keys, values and headers as text: no script runs, no element or link is injected', async () => {
    await page.goto(`${url.replace(/\?token=.*$/, '')}consumers/billing-order-confirmed?key=${encodeURIComponent(`${run}-hostile`)}`);
    expect(await page.textContent('#matching')).toBe('2');
    expect(await page.locator('#records img, #groups img, #records script').count()).toBe(0);
    expect(await page.locator('#groups').textContent()).toContain(HOSTILE.errorClass);
    await page.locator('#records a', { hasText: /^\d+:\d+$/ }).first().click();
    await page.locator('#value').waitFor();
    expect(await page.textContent('#key')).toContain('<script>alert("key")</script>');
    expect(await page.textContent('#value')).toContain('\\x1b]8;;https://evil.example/\\x07click');
    expect(await page.textContent('#error-message')).toContain('invoice-\\u202efdp.exe \\x1b[31mred');
    expect(await page.textContent('#headers')).toContain('x-tenant\\u202e');
    expect(await page.locator('main img, main script, main a[href^="javascript"]').count()).toBe(0);
    await page.screenshot({ path: path.join(IMAGES, 'console-record.png'), fullPage: true });
    expect(alerts).toEqual([]);
  });

  it('discards the ticked records with a reason, and the audit log shows it first', async () => {
    await page.goto(`${url.replace(/\?token=.*$/, '')}consumers/billing-order-confirmed?key=${encodeURIComponent(`${run}-hostile`)}`);
    for (const box of await page.locator('#records input[type=checkbox]').all()) await box.check();
    await page.click('text=Dry run the ticked records');
    await page.locator('#discard-form').waitFor();
    await page.fill('#discard-form input[name=reason]', 'written by hand into the DLQ, not an order');
    await page.click('#discard-form button[type=submit]');
    await page.locator('#job-done').waitFor();
    expect(await page.textContent('#job-done')).toContain('Discarded 2 records');
    expect(await page.locator('#job-audit tbody tr').count()).toBe(2);

    await page.goto(`${url.replace(/\?token=.*$/, '')}consumers/billing-order-confirmed/audit`);
    const first = page.locator('#audit tbody tr').first();
    expect(await first.textContent()).toMatch(/discarded.*e2e-operator.*written by hand into the DLQ, not an order/);
    await page.screenshot({ path: path.join(IMAGES, 'console-audit.png') });
    expect(alerts).toEqual([]);
    expect(cspViolations).toEqual([]);
  });

  function row(name: string) {
    return page.locator('#overview tr', { hasText: name });
  }
});
