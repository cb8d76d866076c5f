/** A Kafka principal as ACLs name it: `User:` then a name without spaces or wildcards. */
export const PRINCIPAL_PATTERN = /^User:[^\s*]+$/;

export function defaultReplayPrincipal(topology: string): string {
  return `User:${topology}-replay`;
}

export function defaultMonitorPrincipal(topology: string): string {
  return `User:${topology}-monitor`;
}

/** The read-only principal of `krt plan --live`. */
export function defaultDriftPrincipal(topology: string): string {
  return `User:${topology}-drift`;
}

/** The name part of `User:name`. */
export function principalName(principal: string): string {
  return principal.slice(principal.indexOf(':') + 1);
}
