/**
 * The console behind the lab's own secret (CONSOLE_SECRET: every class lab, and any console published
 * beyond loopback): a login compares the secret in constant time and opens a session, an HttpOnly
 * SameSite=Strict cookie holding a random id, named for this lab and port, and bound to the client
 * address that signed in. The secret reaches the console only in the login form's body (a sign-in link
 * carries it in the URL's fragment, which a browser never sends) and is never logged.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A session lasts a teaching day; a restarted console forgets its sessions (log in again). */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
/** Sessions kept at most; the oldest is dropped past it (a class logs in a few dozen times a day). */
const MAX_SESSIONS = 256;

/**
 * Each lab's console has a cookie of its own: every lab of a class shares the host's address, and a
 * browser sends a host's cookies to all its ports, so one shared name let one lab's sign-in overwrite
 * another's. `lab` is the lab's name (`default` for the single lab), `port` the published port.
 */
export const sessionCookieName = (lab: string, port: number) =>
  `soar_console_${lab.replace(/[^a-z0-9-]/gi, '_')}_${port}`;

export interface SessionSettings {
  /** The cookie's name (sessionCookieName). */
  cookie: string;
  /**
   * The https:// origin a TLS proxy serves this console on (LAB_PUBLIC_ORIGIN with the published port):
   * accepted as Origin, the cookie `Secure`, the client address the proxy's X-Forwarded-For.
   */
  publicOrigin?: string | undefined;
  /**
   * Served over TLS by the console itself: the https:// origins it answers on (its names with its
   * published port), accepted as Origin; the cookie `Secure`; the client the TCP peer.
   */
  tlsOrigins?: readonly string[] | undefined;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

interface Opened {
  at: number;
  client: string;
}

export class Sessions {
  readonly cookie: string;
  readonly publicOrigin: string | undefined;
  readonly tlsOrigins: readonly string[] | undefined;
  readonly #secret: Buffer;
  readonly #open = new Map<string, Opened>();
  readonly #now: () => number;

  constructor(secret: string, settings: SessionSettings, now: () => number = Date.now) {
    this.#secret = digest(secret);
    this.cookie = settings.cookie;
    this.publicOrigin = settings.publicOrigin;
    this.tlsOrigins = settings.tlsOrigins;
    this.#now = now;
  }

  /** Constant time whatever the given text's length: both sides are hashed to 32 bytes first. */
  matches(given: string): boolean {
    return timingSafeEqual(digest(given), this.#secret);
  }

  /** A new session for the client address that signed in. */
  open(client: string): string {
    const id = randomBytes(32).toString('base64url');
    this.#open.set(id, { at: this.#now(), client });
    if (this.#open.size > MAX_SESSIONS) {
      const oldest = this.#open.keys().next().value;
      if (oldest !== undefined) this.#open.delete(oldest);
    }
    return id;
  }

  /** A session id this console opened, not expired, used from the address it was opened for. */
  valid(id: string | undefined, client: string): boolean {
    if (id === undefined) return false;
    const opened = this.#open.get(id);
    if (opened === undefined) return false;
    if (this.#now() - opened.at > SESSION_TTL_SECONDS * 1000) {
      this.#open.delete(id);
      return false;
    }
    // Another address holds a copy of the cookie, not the session: refused as if unsigned (the session
    // stays for the browser that opened it).
    return opened.client === client;
  }
}
