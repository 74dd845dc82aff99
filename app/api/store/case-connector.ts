/** The case connector's failure switch: healthy, failed, or failing the next write only. */
import type { CaseMode } from '../schemas/control.js';
import { done, type Outcome, refused } from './outcome.js';

const OK: Outcome<undefined> = done(undefined);
const FAILED: Outcome<undefined> = refused({ kind: 'case_connector_failed' });

/**
 * The case connector's failure switch. `fail_next_write` fails exactly one write and returns to
 * `healthy`; lookups only fail in `failed`.
 */
export class CaseConnector {
  #mode: CaseMode = 'healthy';

  /** `onChange`: told of every change, so the store's state version moves (store.ts). */
  constructor(private readonly onChange: () => void = () => {}) {}

  get mode(): CaseMode {
    return this.#mode;
  }

  setMode(mode: CaseMode): CaseMode {
    const previous = this.#mode;
    this.#mode = mode;
    this.onChange();
    return previous;
  }

  read(): Outcome<undefined> {
    return this.#mode === 'failed' ? FAILED : OK;
  }

  /** Called once per write, after the fields are valid, so a refused body does not use up the failure. */
  write(): Outcome<undefined> {
    if (this.#mode === 'healthy') return OK;
    if (this.#mode === 'fail_next_write') {
      this.#mode = 'healthy';
      this.onChange();
    }
    return FAILED;
  }
}
