import { ApiError } from '../errors.js';
import type { CaseMode } from '../schemas/control.js';

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

  assertReadable(): void {
    if (this.#mode === 'failed') throw connectorFailed();
  }

  /** Called once per write, after the fields are valid, so a refused body does not use up the failure. */
  assertWritable(): void {
    if (this.#mode === 'healthy') return;
    if (this.#mode === 'fail_next_write') {
      this.#mode = 'healthy';
      this.onChange();
    }
    throw connectorFailed();
  }
}

const connectorFailed = () =>
  new ApiError('case_connector_failed', 'The case connector is failing (case_mode); nothing was written.');
