/** The expiring blocklist, applied against the service clock, with its removed entries kept in columns. */
import {
  BLOCKABLE_ADDRESS,
  type BlockEntry,
  type BlockHistoryRecord,
  type BlockRequest,
} from '../schemas/blocklist.js';
import { iso } from './clock.js';
import { done, type Outcome, refused } from './outcome.js';
import { RingSlots, StringPool } from './ring.js';

interface ActiveEntry {
  entry: BlockEntry;
  createdAtMs: number;
  expiresAtMs: number;
}

type RemovedReason = BlockHistoryRecord['removed_reason'];
const REASONS: readonly RemovedReason[] = ['expired', 'unblocked'];

/**
 * The removed entries, oldest first, in columns (times as milliseconds): every unblock writes one, so
 * they are kept as nothing the garbage collector copies (ring.ts says why); `list()` builds the records.
 */
class History {
  readonly #slots: RingSlots;
  readonly #ip: string[];
  readonly #eventId: string[];
  readonly #minutes: Uint8Array;
  readonly #created: Float64Array;
  readonly #expires: Float64Array;
  readonly #removed: Float64Array;
  readonly #reason: Uint8Array;
  readonly #addresses = new StringPool(16, 64);

  constructor(limit: number) {
    this.#slots = new RingSlots(limit);
    this.#ip = new Array<string>(limit).fill('');
    this.#eventId = new Array<string>(limit).fill('');
    this.#minutes = new Uint8Array(limit);
    this.#created = new Float64Array(limit);
    this.#expires = new Float64Array(limit);
    this.#removed = new Float64Array(limit);
    this.#reason = new Uint8Array(limit);
  }

  push(active: ActiveEntry, removedAtMs: number, reason: RemovedReason): void {
    const slot = this.#slots.claim();
    this.#ip[slot] = this.#addresses.get(active.entry.ip);
    this.#eventId[slot] = active.entry.event_id;
    this.#minutes[slot] = active.entry.expires_minutes;
    this.#created[slot] = active.createdAtMs;
    this.#expires[slot] = active.expiresAtMs;
    this.#removed[slot] = removedAtMs;
    this.#reason[slot] = REASONS.indexOf(reason);
  }

  list(): BlockHistoryRecord[] {
    return Array.from({ length: this.#slots.size }, (_, i) => {
      const slot = this.#slots.slot(i);
      return {
        ip: this.#ip[slot] as string,
        event_id: this.#eventId[slot] as string,
        expires_minutes: this.#minutes[slot] as number,
        created_at: iso(this.#created[slot] as number),
        expires_at: iso(this.#expires[slot] as number),
        removed_at: iso(this.#removed[slot] as number),
        removed_reason: REASONS[this.#reason[slot] as number] as RemovedReason,
      };
    });
  }

  clear(): void {
    this.#slots.clear();
    this.#ip.fill('');
    this.#eventId.fill('');
  }
}

/**
 * The expiring blocklist. Expiry is applied whenever the list is read or written, against the service
 * clock, so an entry reads as removed from the instant the clock reaches its expires_at, and its history
 * record says so with removed_at = expires_at. History is a ring, so repeated block/unblock stays bounded.
 */
export class Blocklist {
  readonly #active = new Map<string, ActiveEntry>();
  readonly #history: History;

  /** `onChange`: told of every change, expiry included, so the store's state version moves (store.ts). */
  constructor(
    historyLimit: number,
    private readonly onChange: () => void = () => {},
  ) {
    this.#history = new History(historyLimit);
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
    this.#active.set(entry.ip, { entry, createdAtMs: now, expiresAtMs });
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
    this.#history.push(present, now, 'unblocked');
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
    return this.#history.list();
  }

  clear(): void {
    this.#active.clear();
    this.#history.clear();
    this.onChange();
  }

  #expire(now: number): void {
    for (const [ip, active] of this.#active) {
      if (now < active.expiresAtMs) continue;
      this.#active.delete(ip);
      this.#history.push(active, active.expiresAtMs, 'expired');
      this.onChange();
    }
  }
}
