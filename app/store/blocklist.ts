import {
  BLOCKABLE_ADDRESS,
  type BlockEntry,
  type BlockHistoryRecord,
  type BlockRequest,
} from '../schemas/blocklist.js';
import { iso } from './clock.js';
import { done, type Outcome, refused } from './outcome.js';
import { Ring } from './ring.js';

interface ActiveEntry {
  entry: BlockEntry;
  expiresAtMs: number;
}

/**
 * The expiring blocklist. Expiry is applied whenever the list is read or written, against the service
 * clock, so an entry reads as removed from the instant the clock reaches its expires_at, and its history
 * record says so with removed_at = expires_at. History is a ring, so repeated block/unblock stays bounded.
 */
export class Blocklist {
  readonly #active = new Map<string, ActiveEntry>();
  readonly #history: Ring<BlockHistoryRecord>;

  /** `onChange`: told of every change, expiry included, so the store's state version moves (store.ts). */
  constructor(
    historyLimit: number,
    private readonly onChange: () => void = () => {},
  ) {
    this.#history = new Ring(historyLimit);
  }

  blockAddress(request: BlockRequest, now: number): Outcome<BlockEntry> {
    if (request.ip !== BLOCKABLE_ADDRESS) {
      return refused({ kind: 'address_not_blockable', ip: request.ip, blockable: BLOCKABLE_ADDRESS });
    }
    this.#expire(now);
    const present = this.#active.get(request.ip);
    if (present) return refused({ kind: 'already_blocked', entry: present.entry });
    const expiresAtMs = now + request.expires_minutes * 60_000;
    const entry: BlockEntry = {
      ip: request.ip,
      event_id: request.event_id,
      expires_minutes: request.expires_minutes,
      created_at: iso(now),
      expires_at: iso(expiresAtMs),
    };
    this.#active.set(entry.ip, { entry, expiresAtMs });
    this.onChange();
    return done(entry);
  }

  lookup(ip: string, now: number): BlockEntry | undefined {
    this.#expire(now);
    return this.#active.get(ip)?.entry;
  }

  unblockAddress(ip: string, now: number): Outcome<BlockEntry> {
    this.#expire(now);
    const present = this.#active.get(ip);
    if (!present) return refused({ kind: 'not_blocked', ip });
    this.#active.delete(ip);
    this.#history.push({ ...present.entry, removed_at: iso(now), removed_reason: 'unblocked' });
    this.onChange();
    return done(present.entry);
  }

  active(now: number): BlockEntry[] {
    this.#expire(now);
    return [...this.#active.values()].map((a) => a.entry);
  }

  /** How many addresses are blocked at `now` (expiry applied first). */
  count(now: number): number {
    this.#expire(now);
    return this.#active.size;
  }

  history(now: number): BlockHistoryRecord[] {
    this.#expire(now);
    return this.#history.toArray();
  }

  clear(): void {
    this.#active.clear();
    this.#history.clear();
    this.onChange();
  }

  #expire(now: number): void {
    for (const [ip, { entry, expiresAtMs }] of this.#active) {
      if (now < expiresAtMs) continue;
      this.#active.delete(ip);
      this.#history.push({ ...entry, removed_at: entry.expires_at, removed_reason: 'expired' });
      this.onChange();
    }
  }
}
