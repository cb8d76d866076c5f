import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The cookie that carries the session token after the first request with ?token=. */
export const TOKEN_COOKIE = 'krt_console_token';
export const CSRF_FIELD = 'csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** A new random session token, as Jupyter prints one: 192 bits, URL-safe. */
export function newSessionToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The CSRF token of a session: derived from its token, so it needs no state and reveals nothing of it. */
export function csrfToken(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('krt console csrf').digest('base64url');
}

export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), for this host only. */
export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}
