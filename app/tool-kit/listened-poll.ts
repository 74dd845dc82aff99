/**
 * A poll that runs only while it is started and someone listens (an idle console asks nothing of anyone):
 * every `ms` from then on, and at once when the first listener comes; listeners are told what `tell` gives.
 */
export class ListenedPoll<V> {
  readonly #listeners = new Set<(view: V) => void>();
  readonly #ms: number;
  readonly #poll: () => void;
  #timer: NodeJS.Timeout | undefined;
  #started = false;

  constructor(ms: number, poll: () => void) {
    this.#ms = ms;
    this.#poll = poll;
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

  tell(view: V): void {
    for (const listener of this.#listeners) listener(view);
  }

  #follow(): void {
    const wanted = this.#started && this.#listeners.size > 0;
    if (wanted && this.#timer === undefined) {
      this.#timer = setInterval(this.#poll, this.#ms);
      this.#poll();
    } else if (!wanted && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}
