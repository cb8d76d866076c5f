import { BadRequestException } from '@nestjs/common';
import { z } from 'zod';

export const OrderConfirmed = z.object({ orderId: z.string().min(1), amountCents: z.number().int().positive(), currency: z.string().length(3) });
export type OrderConfirmed = z.infer<typeof OrderConfirmed>;

/** Reads a record's value as a validation pipe would: a record that is not a valid order is a 400, so it goes to the DLQ at once. */
export function parseOrder(value: Buffer | null): OrderConfirmed {
  let json: unknown;
  try {
    json = JSON.parse(value?.toString('utf8') ?? '');
  } catch {
    throw new BadRequestException('the record is not JSON');
  }
  const order = OrderConfirmed.safeParse(json);
  if (!order.success) throw new BadRequestException(order.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return order.data;
}
