import { ConflictException, HttpException, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { BillingConfig } from './billing.config';
import type { OrderConfirmed } from './order';

/** The payment service's API; its answers become the Nest exceptions that decide where a failed record goes. */
@Injectable()
export class PaymentsService {
  constructor(private readonly config: BillingConfig) {}

  async charge(order: OrderConfirmed): Promise<void> {
    const response = await fetch(`${this.config.paymentUrl}/charges/${encodeURIComponent(order.orderId)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'idempotency-key': order.orderId },
      body: JSON.stringify(order),
    });
    if (response.ok) return;
    if (response.status === 503) throw new ServiceUnavailableException('the payment service is unavailable'); // the retry tiers
    if (response.status === 409) throw new ConflictException(`order ${order.orderId} is already charged`); // see AlreadyChargedFilter
    throw new HttpException(`the payment service answered ${response.status}`, response.status);
  }
}
