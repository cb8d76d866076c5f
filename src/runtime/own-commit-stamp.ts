import { randomBytes } from 'node:crypto';

/** What begins the metadata of a commit an unordered committer stamped as its own. */
const PREFIX = 'krt-own:';

/** A token for one offset committer's lifetime: no other member, and no other run of this one, has it. */
export function newCommitterToken(): string {
  return randomBytes(9).toString('base64url');
}

/**
 * The metadata a committer stamps on a partition's commits: its token, and how many times the
 * partition's log started over in this committer (a commit of the old log is not the new one's).
 * Read back as the group's commit, it proves the commit is this committer's own even when the
 * broker's answer was lost (an outage) or a later send of the same offset was answered "no".
 */
export function ownCommitStamp(token: string, log: number): string {
  return `${PREFIX}${token}.${log}`;
}

/** Whether the group's commit metadata is exactly `stamp` (the Confluent client may pad it with NULs: they say nothing). */
export function carriesStamp(metadata: string | null | undefined, stamp: string): boolean {
  return (metadata ?? '').replace(/\u0000+$/, '') === stamp;
}
