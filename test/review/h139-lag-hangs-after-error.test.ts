/**
 * Review h139: `krt lag <consumer>` prints its error and then never exits when a request
 * fails while another one of the same section is still being retried.
 *
 * Seen on the test broker (exit code 124 from `timeout`, the process still running):
 *   - a consumer whose topics were never created (Terraform not applied):
 *     `krt lag a` -> "krt: This server does not host this topic-partition" after 6 s, then hangs (>200 s);
 *   - `KAFKA_SASL_USERNAME=analytics-monitor krt lag billing-order-confirmed` (another
 *     topology's monitor) -> "krt: Failed to find group coordinator: ..." then hangs.
 * An on-call engineer's shell (or a script) waits forever.
 *
 * Code at fault: src/cli/lag-command.ts `section()` runs lagOf and membersOf with Promise.all:
 * the first rejection disconnects the admin (lagCommand's finally) while the other call is
 * still in retryingRetriable's loop (and lagOf's own Promise.all has a second one): those
 * retries go on against a disconnected admin (kafkajs connects again for them, most likely
 * what keeps a socket open: the hang outlasts the 20 retries), and the process only sets
 * process.exitCode (src/cli/process-main.ts), so it waits for them.
 * Fixed: the command's requests stop retrying once it failed (an AbortSignal to retryingRetriable, aborted before the disconnect); suggested: settle every request of a section before disconnecting (Promise.allSettled, then
 * rethrow the first error), or abort the retries once the command failed.
 */
import path from 'node:path';

let disconnected = false;
let callsAfterDisconnect = 0;
/** Set at the test's end: the retries still going then fail for good, so they leave no timer behind. */
let over = false;
const retriable = () => Object.assign(new Error('The group coordinator is not available'), { name: 'KafkaJSProtocolError', retriable: true });
const refused = () => Object.assign(new Error('This server does not host this topic-partition'), { name: 'KafkaJSProtocolError', retriable: false });
const call = (result: () => Promise<unknown>) => () => {
  if (disconnected) callsAfterDisconnect++;
  return result();
};

jest.mock('../../src/connection/kafka-connection', () => ({
  ...jest.requireActual('../../src/connection/kafka-connection'),
  kafkaFromEnv: () => ({
    admin: () => ({
      connect: async () => {},
      disconnect: async () => {
        disconnected = true;
      },
      fetchTopicOffsets: call(async () => Promise.reject(refused())),
      fetchOffsets: call(async () => Promise.reject(over ? refused() : retriable())),
      describeGroups: call(async () => Promise.reject(over ? refused() : retriable())),
    }),
  }),
}));

import { lagCommand } from '../../src/cli/lag-command';

it('krt lag sends nothing more once it failed and disconnected, so the process can end', async () => {
  const io = { cwd: path.resolve(__dirname, '..', '..'), stdout: () => {}, stderr: () => {}, env: {} };
  await expect(lagCommand(io, 'billing-order-confirmed')).rejects.toThrow('does not host');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const seen = callsAfterDisconnect;
  over = true;
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  expect(seen).toBe(0);
}, 60_000);
