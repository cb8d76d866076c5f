import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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

/**
 * The cookie that stands for the session token after the first request with ?token=: named
 * and valued from the token, never the token itself. A browser keeps cookies per host, not
 * per port: one name for every console made a second console on the host sign the first one's
 * tab out, and every other server on 127.0.0.1 received the printed token.
 */
export function sessionCookie(sessionToken: string): { readonly name: string; readonly value: string } {
  const derived = (purpose: string) => createHmac('sha256', sessionToken).update(purpose).digest('base64url');
  return { name: `krt_console_${derived('krt console cookie name').slice(0, 12)}`, value: derived('krt console cookie') };
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), for this host only. */
export function tokenCookie(token: string): string {
  const { name, value } = sessionCookie(token);
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict`;
}

/** The Cookie header a browser sends once signed in to the session of this token. */
export function sessionCookieHeader(token: string): string {
  const { name, value } = sessionCookie(token);
  return `${name}=${value}`;
}
