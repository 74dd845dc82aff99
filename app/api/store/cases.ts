/** The cases, keyed by event id, as the workflow wrote them without the service-owned fields. */
import type { Case, CaseWrite } from '../schemas/case.js';
import { SERVICE_OWNED_FIELDS } from '../schemas/common.js';
import { iso } from './clock.js';
import { done, type Outcome, refused } from './outcome.js';

const OWNED: ReadonlySet<string> = new Set(SERVICE_OWNED_FIELDS);

/** Cases keyed by event_id; a Map keeps insertion order and cannot be polluted through its keys. */
export class CaseStore {
  readonly #cases = new Map<string, Case>();

  /** `maxBytes`: the largest a case may grow through updates (its JSON), so merges cannot grow without end. */
  /** `onChange`: told of every change, so the store's state version moves (store.ts). */
  constructor(
    readonly limit: number,
    readonly maxBytes: number = Number.POSITIVE_INFINITY,
    private readonly onChange: () => void = () => {},
  ) {}

  get size(): number {
    return this.#cases.size;
  }

  find(eventId: string): Case | undefined {
    return this.#cases.get(eventId);
  }

  /**
   * Creates the case or merges the fields sent into it (shallow: a field sent replaces that field).
   * `json` is the record serialised, made once: the size check and the answer both use it.
   */
  upsertCase(write: CaseWrite, now: number): Outcome<{ case: Case; created: boolean; json: string }> {
    const existing = this.#cases.get(write.event_id);
    if (!existing && this.#cases.size >= this.limit) {
      return refused({ kind: 'case_limit_reached', limit: this.limit });
    }
    // Most writes carry no service-owned field and are merged as they came (a spread keeps an own
    // `__proto__` key a plain field); the copy without them is made only when one is there.
    const fields = carriesOwned(write) ? withoutOwned(write) : (write as Record<string, unknown>);
    const at = iso(now);
    const record: Case = existing
      ? {
          ...existing,
          ...fields,
          event_id: existing.event_id,
          updated_at: at,
          revision: existing.revision + 1,
        }
      : { ...fields, event_id: write.event_id, created_at: at, updated_at: at, revision: 1 };
    // Each write is capped by the body limit, but updates add fields: without this a client could grow one
    // case until the process runs out of memory. Only updates can grow past a single body.
    const json = JSON.stringify(record);
    if (existing && json.length > this.maxBytes) {
      return refused({ kind: 'case_too_large', maxBytes: this.maxBytes });
    }
    this.#cases.set(record.event_id, record);
    this.onChange();
    return done({ case: record, created: !existing, json });
  }

  list(): Case[] {
    return [...this.#cases.values()];
  }

  clear(): void {
    this.#cases.clear();
    this.onChange();
  }
}

function carriesOwned(write: CaseWrite): boolean {
  for (const key of SERVICE_OWNED_FIELDS) if (Object.hasOwn(write, key)) return true;
  return false;
}

/**
 * The write without the service-owned fields, copied rather than copied and then `delete`d: a delete
 * turns the object into a slow dictionary, and every spread of the record after it pays.
 */
function withoutOwned(write: CaseWrite): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(write)) {
    if (OWNED.has(key)) continue;
    const value = write[key as keyof CaseWrite];
    // An own `__proto__` key stays a plain field (an assignment would set the prototype instead).
    if (key === '__proto__')
      Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
    else fields[key] = value;
  }
  return fields;
}
