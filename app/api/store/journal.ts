/** The request journal: the last requests, kept in columns, so a verifier can tell what a run asked. */
import type { JournalEntry } from '../schemas/state.js';
import { iso } from './clock.js';
import { RingSlots, StringPool } from './ring.js';

/**
 * The request journal: the last N requests, so a verifier can prove what a run did and did not ask.
 * Every journaled request writes one entry, so the entries are kept in columns (ring.ts says why), the
 * time as milliseconds, the method and path from a pool; `list()` builds the entries when they are read.
 */
export class Journal {
  readonly #slots: RingSlots;
  readonly #seq: Float64Array;
  readonly #at: Float64Array;
  readonly #status: Uint16Array;
  readonly #method: string[];
  readonly #path: string[];
  readonly #strings = new StringPool(256, 128);
  #lastSeq = 0;

  /** `onChange`: told of every change, so the store's state version moves (store.ts). */
  constructor(
    limit: number,
    private readonly onChange: () => void = () => {},
  ) {
    this.#slots = new RingSlots(limit);
    this.#seq = new Float64Array(limit);
    this.#at = new Float64Array(limit);
    this.#status = new Uint16Array(limit);
    this.#method = new Array<string>(limit).fill('');
    this.#path = new Array<string>(limit).fill('');
  }

  record(method: string, path: string, status: number, now: number): void {
    const slot = this.#slots.claim();
    this.#seq[slot] = ++this.#lastSeq;
    this.#at[slot] = now;
    this.#status[slot] = status;
    this.#method[slot] = this.#strings.get(method);
    this.#path[slot] = this.#strings.get(path);
    this.onChange();
  }

  /** Oldest first. */
  list(): JournalEntry[] {
    return Array.from({ length: this.#slots.size }, (_, i) => {
      const slot = this.#slots.slot(i);
      return {
        seq: this.#seq[slot] as number,
        at: iso(this.#at[slot] as number),
        method: this.#method[slot] as string,
        path: this.#path[slot] as string,
        status: this.#status[slot] as number,
      };
    });
  }

  /** seq keeps counting across resets, so entries from before and after a reset are never confused. */
  clear(): void {
    this.#slots.clear();
    this.#method.fill('');
    this.#path.fill('');
    this.onChange();
  }
}
