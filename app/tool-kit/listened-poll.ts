/**
 * A poll that runs only while it is started and someone listens (an idle console asks nothing of anyone):
 * `poll` every `ms` from then on, and at once when the first listener comes; listeners are told what
 * `tell` gives. `refresh` polls now, one poll at a time. The console's state feed and the tutor are such
 * polls.
 */
export abstract class ListenedPoll<V> {
  readonly #listeners = new Set<(view: V) => void>();
  readonly #ms: number;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(ms: number) {
    this.#ms = ms;
  }

  /** One poll; never rejects. */
  protected abstract poll(): Promise<void>;

  /** Polls now (after an action); a call during a poll runs one more poll after it. */
  refresh(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.poll();
      } while (this.#again);
    })().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** True while it polls: started, and someone listening. */
  get polling(): boolean {
    return this.#timer !== undefined;
  }

  subscribe(listener: (view: V) => void): () => void {
    this.#listeners.add(listener);
    this.#follow();
    return () => {
      this.#listeners.delete(listener);
      this.#follow();
    };
  }

  start(): void {
    this.#started = true;
    this.#follow();
  }

  stop(): void {
    this.#started = false;
    this.#follow();
  }

  protected tell(view: V): void {
    for (const listener of this.#listeners) listener(view);
  }

  #follow(): void {
    const wanted = this.#started && this.#listeners.size > 0;
    if (wanted && this.#timer === undefined) {
      this.#timer = setInterval(() => void this.refresh(), this.#ms);
      void this.refresh();
    } else if (!wanted && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}
