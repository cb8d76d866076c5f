/** The npm name of the runtime package services install: what every generated router package requires. */
export const RUNTIME_PACKAGE = '@kafka-retry-topology/runtime';

/** The npm name of a topology's generated router package. */
export function routerPackageName(topology: string): string {
  return `${topology}-retry-router`;
}

/** `billing-order-confirmed` -> `billingOrderConfirmed`: the consumer's constant in the router package. */
export function consumerConstantName(consumer: string): string {
  return consumer.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `billing-order-confirmed` -> `BillingOrderConfirmedValue`: the type of the values its handler receives. */
export function consumerValueTypeName(consumer: string): string {
  const constant = consumerConstantName(consumer);
  return `${constant[0]!.toUpperCase()}${constant.slice(1)}Value`;
}

/** The package a module specifier names: `@acme/events/orders` -> `@acme/events`. */
export function packageOfSpecifier(specifier: string): string {
  const parts = specifier.split('/');
  return parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}
