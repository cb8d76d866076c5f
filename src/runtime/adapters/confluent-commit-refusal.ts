import { someCause } from '../error-causes';

/**
 * librdkafka's codes for a group coordinator loading, without a leader or moved, a request or
 * local time-out, a broken connection, every broker down, and waiting for a coordinator. The
 * client finds a moved coordinator by itself, so a commit refused so is accepted if sent again
 * shortly. By code: the client's KafkaJS errors name a code with two names (14, 15, 16) by
 * type -1, not by name (attack 41).
 */
const COORDINATOR_AWAY = new Set([7, 13, 14, 15, 16, -185, -195, -187, -180]);

/** Whether the Confluent client accepts a commit it refused so if it is sent again shortly. */
export function confluentCoordinatorAway(error: unknown): boolean {
  return someCause(error, (e) => COORDINATOR_AWAY.has((e as { code?: unknown }).code as number));
}
