import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The payment service the example billing service calls (PUT /charges/<orderId>), standing
 * in for a real one on loopback: it charges every order (201) but those it declines (422),
 * and remembers which orders it was asked for.
 */
export class PaymentService {
  readonly asked = new Set<string>();
  private readonly server: http.Server;

  constructor(private readonly declined: ReadonlySet<string>) {
    this.server = http.createServer((request, response) => {
      const orderId = decodeURIComponent(request.url?.split('/').pop() ?? '');
      this.asked.add(orderId);
      response.writeHead(this.declined.has(orderId) ? 422 : 201).end();
    });
  }

  /** Listens on a free port of 127.0.0.1; resolves to its URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
