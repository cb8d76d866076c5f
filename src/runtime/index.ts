/**
 * `kafka-retry-topology/runtime`: what services import. It never imports generator code,
 * cdktf or handlebars, so a service does not pull in Terraform tooling.
 */
export { HEADERS, SPRING_DLT_HEADERS } from '../naming/headers';
export type { HeaderStyle } from '../naming/headers';
export { METRICS } from '../naming/metrics';
export { formatDuration, parseDuration } from '../duration';
export type { Duration } from '../duration';
