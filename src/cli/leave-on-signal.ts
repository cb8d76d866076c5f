import { systemClock } from '../runtime/clock';
import { settlesWithin } from '../runtime/settles-within';

/** Longest a command told to stop waits for what it leaves, before it ends anyway. */
export const LEAVE_DEADLINE_MS = 5_000;

/**
 * Until the returned function is called: at SIGINT or SIGTERM, runs `leave` (at most
 * `deadlineMs`), then raises the signal again, so the process ends as the signal would have
 * ended it. A second signal meanwhile ends it at once. For a command that holds a group
 * member: ended by the signal alone, it sends no LeaveGroup, and the broker keeps the
 * member for a session timeout.
 */
export function leaveOnSignal(leave: () => Promise<void>, deadlineMs = LEAVE_DEADLINE_MS): () => void {
  const remove = () => {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  };
  function onSignal(signal: NodeJS.Signals): void {
    remove();
    void settlesWithin(systemClock, leave(), deadlineMs).then(() => process.kill(process.pid, signal));
  }
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  return remove;
}
