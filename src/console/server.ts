import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConsumerModel, TopologyModel } from '../model/types';
import { DlqError } from '../dlq/session';
import type { DlqRecord } from '../dlq/session';
import { CSRF_FIELD, CSRF_HEADER, cookieValue, csrfToken, sameSecret, sessionCookie, tokenCookie } from './auth';
import type { ConsoleDlq } from './backend';
import { CONSOLE_CSS, htmxScript } from './assets';
import { FilterError, filterOf, one } from './filter';
import type { Query } from './filter';
import { html } from './html';
import type { SafeHtml } from './html';
import { Jobs } from './jobs';
import { auditPage, dryRunFragment, jobFragment } from './pages/actions';
import { consumerPage, PAGE_SIZE, summaryFragment } from './pages/consumer';
import { page } from './pages/layout';
import type { PageContext } from './pages/layout';
import { overviewPage } from './pages/overview';
import type { OverviewRow } from './pages/overview';
import { recordPage } from './pages/record';
import { cursorOf, headScan, pageScan, PREVIEW_BYTES } from './scan';
import { summaryCache } from './summary-cache';
import { describeSelection, resolveSelection, selectionChooser, selectionOf } from './selection';
import { systemClock } from '../runtime/clock';
import { settlesWithin } from '../runtime/settles-within';

export interface ConsoleOptions {
  readonly topologies: readonly TopologyModel[];
  readonly dlq: ConsoleDlq;
  /** The session token printed at start; every request must carry it (query once, then cookie). */
  readonly token: string;
  /**
   * The Host headers this console answers to (`127.0.0.1:8686`, ...): another name is a
   * DNS-rebinding page. ANY_HOST answers to every name (a console bound to 0.0.0.0, reached by
   * the machine's names); the token's cookie, kept per host name, still guards it.
   */
  readonly allowedHosts: ReadonlySet<string>;
  /** Why replay and discard are off for this consumer, or undefined when they are on. */
  readonly readOnlyReason: (consumer: ConsumerModel) => string | undefined;
  /** A broker or session error as one sentence for the operator (never a secret). */
  readonly explain?: (error: Error) => string;
  readonly grafanaUrl?: string;
  readonly operator?: string;
  readonly now?: () => number;
}

export const ANY_HOST = '*';

/** How long a closing console waits for its actions to end their part in hand, within `krt console`'s 10 s stop deadline. */
const JOBS_STOP_MS = 6_000;

/** The newest audit entries the audit page shows. */
const AUDIT_PAGE_ENTRIES = 200;
const MAX_NAME_LENGTH = 200;

/** Every response: no script but the console's own, no inline anything, no framing, no referrer (the token stays here). */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function formBody(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const before = out[name];
    out[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
  }
  return out;
}

export function buildConsoleServer(options: ConsoleOptions): FastifyInstance {
  // Closing drops every connection, an answer in flight included: a browser's kept-alive connection must not hold a stop past its deadline.
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, forceCloseConnections: true });
  const csrf = csrfToken(options.token);
  const signedIn = sessionCookie(options.token);
  const now = options.now ?? Date.now;
  const jobs = new Jobs();
  const summaries = summaryCache(options.dlq, now);
  const htmx = htmxScript();
  const consumers = options.topologies.flatMap((topology) => topology.consumers.map((consumer) => ({ topology, consumer })));
  const context: PageContext = {
    csrf,
    operator: options.operator ?? '',
    readOnlyReason: (name) => {
      const found = consumers.find((c) => c.consumer.name === name);
      return found ? options.readOnlyReason(found.consumer) : 'no such consumer';
    },
  };
  const explain = (error: unknown): string => {
    if (error instanceof DlqError || error instanceof FilterError || error instanceof HttpError) return error.message;
    if (error instanceof Error) return options.explain ? options.explain(error) : error.message;
    return String(error);
  };

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => done(null, formBody(body as string)));

  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    if (!options.allowedHosts.has(ANY_HOST) && !options.allowedHosts.has(request.headers.host ?? '')) {
      throw new HttpError(421, `this console answers only at ${[...options.allowedHosts].join(' or ')}`);
    }
    const query = request.query as Query;
    const given = one(query, 'token');
    if (given !== undefined) {
      if (!sameSecret(given, options.token)) throw new HttpError(401, 'this token is not the one krt console printed at start; open the URL it printed');
      reply.header('set-cookie', tokenCookie(options.token));
      if (request.method === 'GET') {
        // The token leaves the address bar (and history) at once; the cookie carries it from here.
        const url = new URL(request.url, 'http://console');
        url.searchParams.delete('token');
        return reply.redirect(`${url.pathname}${url.search}`, 303);
      }
      return;
    }
    if (!sameSecret(cookieValue(request.headers.cookie, signedIn.name), signedIn.value)) {
      throw new HttpError(401, 'this console needs its session token: open the URL krt console printed at start (it ends in ?token=...)');
    }
  });

  app.addHook('preHandler', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD') return;
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') throw new HttpError(403, 'requests from other sites are refused');
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://${request.headers.host}`) throw new HttpError(403, 'requests from other origins are refused');
    const body = (request.body ?? {}) as Query;
    const given = one(body, CSRF_FIELD) ?? (request.headers[CSRF_HEADER] as string | undefined);
    if (!sameSecret(given, csrf)) throw new HttpError(403, 'this form is not from this console session (CSRF token missing or wrong); reload the page and try again');
  });

  app.setErrorHandler((error: Error, request, reply) => {
    const status = error instanceof HttpError ? error.status : error instanceof DlqError || error instanceof FilterError ? 400 : (error as { statusCode?: number }).statusCode ?? 500;
    const message = explain(error);
    if (request.headers['hx-request']) {
      // htmx swaps only 2xx answers: the error shows where the result would have.
      return reply.code(200).type('text/html; charset=utf-8').send(html`<p class="error" id="error">${message}</p>`.markup);
    }
    return reply.code(status).type('text/html; charset=utf-8').send(`<!doctype html><meta charset="utf-8"><title>krt console</title><p>${html`${message}`.markup}</p>`);
  });

  const consumerNamed = (name: string) => {
    const found = consumers.find((c) => c.consumer.name === name);
    if (!found) throw new HttpError(404, `no consumer '${name}' in the topologies`);
    return found.consumer;
  };
  const sendPage = (reply: FastifyReply, title: string, body: SafeHtml) => reply.type('text/html; charset=utf-8').send(page(title, body, context));
  const sendFragment = (reply: FastifyReply, body: SafeHtml) => reply.type('text/html; charset=utf-8').send(body.markup);
  const targetOf = (consumer: ConsumerModel) => (record: DlqRecord) => {
    try {
      return options.dlq.replayTarget(consumer, record);
    } catch (error) {
      return { error: explain(error) };
    }
  };

  app.get('/assets/htmx.min.js', (_request, reply) => reply.type('text/javascript; charset=utf-8').send(htmx));
  app.get('/assets/console.css', (_request, reply) => reply.type('text/css; charset=utf-8').send(CONSOLE_CSS));

  app.get('/', async (_request, reply) => {
    // Counted from offsets and the handled state, the oldest from each partition's first unhandled record: no DLQ is walked.
    const rows = await Promise.all(
      consumers.map(async ({ topology, consumer }): Promise<OverviewRow> => {
        try {
          const head = headScan();
          const backlog = await options.dlq.read(consumer, head.keep, ({ records, expired, backlog: unhandled }) => ({ unhandled, oldest: head.oldest(records), expired: expired.reduce((n, e) => n + e.total, 0) }), head.scope);
          return { topology, consumer, backlog };
        } catch (error) {
          return { topology, consumer, backlog: { error: explain(error) } };
        }
      }),
    );
    return sendPage(reply, 'Overview', overviewPage(rows, now(), options.grafanaUrl));
  });

  app.get('/consumers/:name', async (request: FastifyRequest<{ Params: { name: string } }>, reply) => {
    const consumer = consumerNamed(request.params.name);
    const query = request.query as Query;
    const filter = filterOf(query);
    const cursor = cursorOf(one(query, 'after'));
    const scan = pageScan(filter, cursor, PAGE_SIZE);
    const body = await options.dlq.read(consumer, scan.keep, (snapshot) => consumerPage(consumer, scan.view(snapshot.records), snapshot.expired, filter, cursor && `${cursor.partition}:${cursor.offset}`, context), scan.scope);
    return sendPage(reply, consumer.name, body);
  });

  app.get('/consumers/:name/summary', async (request: FastifyRequest<{ Params: { name: string } }>, reply) => {
    const consumer = consumerNamed(request.params.name);
    const filter = filterOf(request.query as Query);
    return sendFragment(reply, summaryFragment(consumer, await summaries.summary(consumer, filter), filter, context));
  });

  app.get('/consumers/:name/records/:id', async (request: FastifyRequest<{ Params: { name: string; id: string } }>, reply) => {
    const consumer = consumerNamed(request.params.name);
    const { id } = request.params;
    const at = cursorOf(id);
    const missing = () => new HttpError(404, `no unhandled record ${id} in ${consumer.dlq.name}: it was handled, deleted by retention, or never existed`);
    if (!at) throw missing();
    // Its partition alone, from its offset, and no further than it.
    const scope = { from: (p: number) => (p === at.partition ? at.offset : undefined), enough: (_p: number, position: bigint) => position > at.offset };
    const body = await options.dlq.read(consumer, (r) => r.id === id, ({ records }) => {
      const record = records.find((r) => r.id === id);
      if (!record) throw missing();
      return recordPage(consumer, record, targetOf(consumer)(record));
    }, scope);
    return sendPage(reply, `${consumer.name} ${id}`, body);
  });

  app.get('/consumers/:name/audit', async (request: FastifyRequest<{ Params: { name: string } }>, reply) => {
    const consumer = consumerNamed(request.params.name);
    const entries = await options.dlq.auditLog(consumer, AUDIT_PAGE_ENTRIES);
    return sendPage(reply, `${consumer.name} audit log`, auditPage(consumer, entries, AUDIT_PAGE_ENTRIES));
  });

  app.post('/consumers/:name/dry-run', async (request: FastifyRequest<{ Params: { name: string } }>, reply) => {
    const consumer = consumerNamed(request.params.name);
    const selection = selectionOf(request.body as Query);
    const chooser = selectionChooser(selection);
    // A dry run publishes nothing: it holds previews of the records it lists.
    const body = await options.dlq.read(consumer, chooser.keep, (snapshot) => dryRunFragment(consumer, selection, resolveSelection(snapshot, selection), targetOf(consumer), options.dlq.replayRouteSentence(consumer), context), { ...chooser.scope, previewBytes: PREVIEW_BYTES });
    return sendFragment(reply, body);
  });

  const startAction = (action: 'replay' | 'discard') => async (request: FastifyRequest<{ Params: { name: string } }>, reply: FastifyReply) => {
    const consumer = consumerNamed(request.params.name);
    const readOnly = options.readOnlyReason(consumer);
    if (readOnly) throw new HttpError(403, `read-only: ${readOnly}`);
    const body = request.body as Query;
    const selection = selectionOf(body);
    const by = one(body, 'by')?.trim();
    if (!by || by.length > MAX_NAME_LENGTH) throw new HttpError(400, 'say who you are (your name, for the audit log)');
    const choose = selectionChooser(selection);
    const route = options.dlq.replayRouteSentence(consumer);
    let job;
    if (action === 'replay') {
      const rate = Number(one(body, 'rate') ?? '10');
      if (!(rate > 0) || !Number.isFinite(rate)) throw new HttpError(400, `the rate is records per second, above 0, not '${one(body, 'rate')}'`);
      job = jobs.start({ action, description: describeSelection(selection), route, by }, (onProgress, signal) => options.dlq.replay(consumer, choose, { rate, by, onProgress, signal }), explain);
    } else {
      const reason = one(body, 'reason')?.trim();
      if (!reason) throw new HttpError(400, 'a discard needs a reason: why these records cannot be saved');
      job = jobs.start({ action, description: describeSelection(selection), route, by }, (onProgress, signal) => options.dlq.discard(consumer, choose, { reason, by, onProgress, signal }), explain);
    }
    return sendFragment(reply, jobFragment(job));
  };
  app.post('/consumers/:name/replay', startAction('replay'));
  app.post('/consumers/:name/discard', startAction('discard'));

  app.get('/jobs/:id', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const job = jobs.get(request.params.id);
    if (!job) throw new HttpError(404, 'no such action: it ended over an hour ago, or the console restarted');
    return sendFragment(reply, jobFragment(job));
  });

  // The actions end first, each at its next step boundary (Jobs.stop): they read and commit
  // through the DLQ that closes after them.
  app.addHook('onClose', async () => {
    // A part in hand past this (a slow broker) does not keep the lease or the readers: the
    // DLQ's close leaves with its sessions and readers anyway (that part is published again by the next run).
    await settlesWithin(systemClock, jobs.stop(), JOBS_STOP_MS);
    await options.dlq.close?.();
  });
  return app;
}
