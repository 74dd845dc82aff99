/**
 * The console behind the lab's own secret (CONSOLE_SECRET: every class lab, and any console published
 * beyond loopback): a login compares the secret in constant time and opens a session, an HttpOnly
 * SameSite=Strict cookie holding a random id. The secret reaches the console only in the login form's
 * body (a sign-in link carries it in the URL's fragment, which a browser never sends) and is never logged.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'console_session';
/** A session lasts a teaching day; a restarted console forgets its sessions (log in again). */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
/** Sessions kept at most; the oldest is dropped past it (a class logs in a few dozen times a day). */
const MAX_SESSIONS = 256;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export class Sessions {
  readonly #secret: Buffer;
  readonly #open = new Map<string, number>();
  readonly #now: () => number;

  constructor(secret: string, now: () => number = Date.now) {
    this.#secret = digest(secret);
    this.#now = now;
  }

  /** Constant time whatever the given text's length: both sides are hashed to 32 bytes first. */
  matches(given: string): boolean {
    return timingSafeEqual(digest(given), this.#secret);
  }

  open(): string {
    const id = randomBytes(32).toString('base64url');
    this.#open.set(id, this.#now());
    if (this.#open.size > MAX_SESSIONS) {
      const oldest = this.#open.keys().next().value;
      if (oldest !== undefined) this.#open.delete(oldest);
    }
    return id;
  }

  valid(id: string | undefined): boolean {
    if (id === undefined) return false;
    const opened = this.#open.get(id);
    if (opened === undefined) return false;
    if (this.#now() - opened > SESSION_TTL_SECONDS * 1000) {
      this.#open.delete(id);
      return false;
    }
    return true;
  }
}
