// A consumer name the generated package does not have does not compile.
import { KafkaRetryConsumer } from '@kafka-retry-topology/runtime/nestjs';
import { consumers } from 'orders-retry-router';

// @ts-expect-error 'billing-order-confirmd' is not a consumer of topology orders
@KafkaRetryConsumer(consumers, 'billing-order-confirmd')
export class Misspelled {}

@KafkaRetryConsumer(consumers, 'billing-order-confirmed')
export class Spelled {}
