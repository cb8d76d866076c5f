/**
 * `kafka-retry-topology/runtime`: the runtime package, `@kafka-retry-topology/runtime`, under
 * its older name. One module instance either way, so errors and consumers created through one
 * name are the same classes as through the other. Services depend on the runtime package alone.
 */
export * from '@kafka-retry-topology/runtime';
