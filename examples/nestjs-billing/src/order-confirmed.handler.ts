import { UseFilters } from '@nestjs/common';
import { KafkaRetryConsumer, OnRecord } from '@kafka-retry-topology/runtime/nestjs';
import type { ConsumedRecord } from '@kafka-retry-topology/runtime';
import { consumers } from 'orders-retry-router';
import { AlreadyChargedFilter } from './already-charged.filter';
import { parseOrder } from './order';
import { PaymentsService } from './payments.service';

/**
 * Charges each confirmed order. A BadRequestException (an invalid order) goes to the DLQ
 * at once; a ServiceUnavailableException through the retry tiers, then the DLQ; the
 * offset is committed only once the record is done or its new home acknowledged it.
 */
@KafkaRetryConsumer(consumers, 'billing-order-confirmed')
@UseFilters(AlreadyChargedFilter)
export class OrderConfirmedHandler {
  constructor(private readonly payments: PaymentsService) {}

  @OnRecord()
  async charge(record: ConsumedRecord): Promise<void> {
    await this.payments.charge(parseOrder(record.message.value));
  }
}
