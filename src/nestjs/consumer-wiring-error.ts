import { KrtError } from '../runtime/krt-error';

/** A Nest application whose retry consumers cannot run as wired (a scoped provider, two handlers, a start refused): Nest stops at bootstrap with it. */
export class ConsumerWiringError extends KrtError {}
