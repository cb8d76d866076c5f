import type { ConsumerModel } from '../model/types';
import type { DlqRecord, ExpiredRecords, Keep, ReadScope } from '../dlq/session';

export type { Keep, ReadScope };

/** The unhandled records one session kept (in partition and offset order), and what retention deleted. */
export interface DlqSnapshot {
  readonly records: readonly DlqRecord[];
  readonly expired: readonly ExpiredRecords[];
  /** The ends (high watermarks) the session read at open. */
  readonly ends: ReadonlyMap<number, bigint>;
  /** The session's handled version (DlqSession.handledVersion): equal ones list the same records below the ends. */
  readonly handledVersion: string;
  /** Unhandled records from offsets and the handled state alone, read or not (DlqSession.backlog). */
  readonly backlog: number;
}

import type { AuditLogEntry } from '../dlq/audit-log';

export type { AuditLogEntry };

export interface ActionProgress {
  readonly onProgress: (done: number, total: number) => void;
  /** Once aborted, the action ends at its next step boundary (the console stopping); the records it never reached are left, with why. */
  readonly signal?: AbortSignal;
}

/** What a replay or discard did: the records it handled and the audit entries it wrote. */
export interface ActionOutcome {
  readonly handled: readonly string[];
  /** Records a replay left in the DLQ, with why (e.g. their key was still being retried). */
  readonly left: readonly { readonly id: string; readonly reason: string }[];
  readonly audit: readonly AuditLogEntry[];
}

/** What an action acts on: the records it keeps while reading, then chosen among them. */
export interface Chooser {
  readonly keep: Keep;
  /** Where its records can be: the session reads no more than that. */
  readonly scope?: ReadScope;
  readonly choose: (snapshot: DlqSnapshot) => readonly DlqRecord[];
}

/**
 * What the console needs of a DLQ, over the same session code as `krt dlq` (src/dlq): the
 * server never touches Kafka itself, so its tests give it records of their own.
 */
export interface ConsoleDlq {
  /** Reads the unhandled records in a DLQ session (as far as `scope` says), keeping those `keep` wants, gives them to `use`, and leaves the session. */
  read<T>(consumer: ConsumerModel, keep: Keep, use: (snapshot: DlqSnapshot) => T, scope?: ReadScope): Promise<T>;
  /** Where a replay publishes this record (topic and partition), or throws why it cannot. */
  replayTarget(consumer: ConsumerModel, record: DlqRecord): { readonly topic: string; readonly partition?: number };
  /** One sentence naming where replays of this consumer go and who will see them. */
  replayRouteSentence(consumer: ConsumerModel): string;
  replay(consumer: ConsumerModel, chooser: Chooser, options: ActionProgress & { readonly rate: number; readonly by: string }): Promise<ActionOutcome>;
  discard(consumer: ConsumerModel, chooser: Chooser, options: ActionProgress & { readonly reason: string; readonly by: string }): Promise<ActionOutcome>;
  /** The newest entries of the consumer's audit log, newest first. */
  auditLog(consumer: ConsumerModel, limit: number): Promise<readonly AuditLogEntry[]>;
  /** Gets ready to read these consumers' DLQs (joins their reader groups in the background), so the first page does not wait for it. */
  warm?(consumers: readonly ConsumerModel[]): void;
  /** Leaves whatever the DLQ kept open between requests (the reader group's members); the server calls it when it closes. */
  close?(): Promise<void>;
}
