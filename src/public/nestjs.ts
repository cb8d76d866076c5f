/** `kafka-retry-topology/nestjs`: `@kafka-retry-topology/runtime/nestjs` under its older name (see ./runtime.ts). */
export * from '@kafka-retry-topology/runtime/nestjs';
