/** The npm name of a topology's generated router package. */
export function routerPackageName(topology: string): string {
  return `${topology}-retry-router`;
}

/** `billing-order-confirmed` -> `billingOrderConfirmed`: the consumer's constant in the router package. */
export function consumerConstantName(consumer: string): string {
  return consumer.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
