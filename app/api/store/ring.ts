/**
 * The slot arithmetic of a fixed-capacity ring: a new entry takes the next slot, the oldest one's when the
 * ring is full. On its own so that a ring can keep its entries in one array (`Ring`) or in columns of
 * typed arrays (the journal, the blocklist history): entries kept as columns are nothing the garbage
 * collector has to copy. A ring of objects written on every request holds each object past two
 * scavenges, so every one was copied twice and then promoted, which made each scavenge several times
 * longer (docs/hardening.md, "Where a request's time goes").
 */
export class RingSlots {
  #start = 0;
  #size = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#size;
  }

  /** The slot for a new entry; when the ring is full, the oldest entry's, which it drops. */
  claim(): number {
    const slot = (this.#start + this.#size) % this.capacity;
    if (this.#size < this.capacity) this.#size++;
    else this.#start = (this.#start + 1) % this.capacity;
    return slot;
  }

  /** The slot of the i-th entry, oldest first (0 <= i < size). */
  slot(i: number): number {
    return (this.#start + i) % this.capacity;
  }

  clear(): void {
    this.#start = 0;
    this.#size = 0;
  }
}

/** A fixed-capacity ring: appends overwrite the oldest entry, so memory stays bounded under any traffic. */
export class Ring<T> {
  readonly #slots: RingSlots;
  readonly #items: (T | undefined)[];

  constructor(readonly capacity: number) {
    this.#slots = new RingSlots(capacity);
    this.#items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.#slots.size;
  }

  push(item: T): void {
    this.#items[this.#slots.claim()] = item;
  }

  /** Oldest first. */
  toArray(): T[] {
    return Array.from({ length: this.#slots.size }, (_, i) => this.#items[this.#slots.slot(i)] as T);
  }

  clear(): void {
    this.#items.fill(undefined);
    this.#slots.clear();
  }
}

/**
 * One shared copy of each short string seen again and again (a journal's methods and paths: a lab has a
 * handful), so a ring entry refers to it instead of holding a fresh string per request. Bounded: at most
 * `maxEntries` strings of at most `maxLength` characters are pooled; any other string is kept as given.
 */
export class StringPool {
  readonly #pool = new Map<string, string>();

  constructor(
    readonly maxEntries: number,
    readonly maxLength: number,
  ) {}

  /** How many strings are pooled. */
  get size(): number {
    return this.#pool.size;
  }

  get(value: string): string {
    if (value.length > this.maxLength) return value;
    const pooled = this.#pool.get(value);
    if (pooled !== undefined) return pooled;
    if (this.#pool.size >= this.maxEntries) return value;
    // A copy of its own: `value` may be a slice that keeps a whole request URL alive.
    const own = Buffer.from(value, 'utf8').toString('utf8');
    this.#pool.set(own, own);
    return own;
  }
}
