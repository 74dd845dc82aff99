import type { JournalEntry } from '../schemas/state.js';
import { iso } from './clock.js';
import { Ring } from './ring.js';

/** The request journal: the last N requests, so a verifier can prove what a run did and did not ask. */
export class Journal {
  readonly #ring: Ring<JournalEntry>;
  #seq = 0;

  /** `onChange`: told of every change, so the store's state version moves (store.ts). */
  constructor(
    limit: number,
    private readonly onChange: () => void = () => {},
  ) {
    this.#ring = new Ring(limit);
  }

  record(method: string, path: string, status: number, now: number): void {
    this.#ring.push({ seq: ++this.#seq, at: iso(now), method, path, status });
    this.onChange();
  }

  list(): JournalEntry[] {
    return this.#ring.toArray();
  }

  /** seq keeps counting across resets, so entries from before and after a reset are never confused. */
  clear(): void {
    this.#ring.clear();
    this.onChange();
  }
}
