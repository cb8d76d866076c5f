import type { Consumer } from 'kafkajs';
import { DlqError } from './dlq-error';

/**
 * Hands `fail` the error of a crash kafkajs will not restart from: a join the broker refuses
 * for good (the principal may not use the group), a fetch it cannot decode. It comes as the
 * runner's CRASH event after run() resolved, so a read or join waiting on its own timer would
 * otherwise wait it out and then name the wrong cause. A crash kafkajs restarts from is its own.
 */
export function onFatalCrash(client: Pick<Consumer, 'on' | 'events'>, fail: (error: Error) => void, what: string): void {
  client.on(client.events.CRASH, (event) => {
    const payload = (event as { payload?: { error?: unknown; restart?: boolean } } | undefined)?.payload;
    if (payload?.restart === false) fail(payload.error instanceof Error ? payload.error : new DlqError(`${what} stopped: ${String(payload.error)}`));
  });
}
