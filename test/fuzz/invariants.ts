/** The fuzz invariants, shared by the app.request() and the real-socket fuzz tests. */
import { expect } from 'vitest';
import { ErrorBodySchema } from '../../app/api/schemas/error.js';
import { LIMITS, type Store } from '../../app/api/store/store.js';

/** The only 5xx answers the contract has: the injected connector failure and the capacity limits. */
const ALLOWED_5XX: Record<number, readonly string[]> = {
  503: ['case_connector_failed'],
  507: ['case_limit_reached', 'notification_limit_reached', 'case_too_large'],
};

/** Every answer is JSON; an error is the contract's shape; no 5xx but the injected and capacity ones. */
export function expectWellFormedAnswer(
  label: string,
  status: number,
  contentType: string | null | undefined,
  text: string,
  method: string,
): void {
  expect(status, label).toBeGreaterThanOrEqual(200);
  expect(contentType, label).toBe('application/json; charset=utf-8');
  if (method === 'HEAD') return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    expect.fail(`${label}: the body is not JSON: ${text.slice(0, 200)}`);
  }
  if (status >= 400) {
    const parsed = ErrorBodySchema.safeParse(body);
    if (!parsed.success) expect.fail(`${label}: not the error shape: ${text.slice(0, 300)}`);
    if (status >= 500) {
      expect(ALLOWED_5XX[status] ?? [], `${label}: ${text.slice(0, 300)}`).toContain(parsed.data.error.code);
    }
  }
}

/** Everything but the journal (which records refusals too) and the clock reading. */
export function stateWithoutJournal(store: Store): string {
  const { journal: _journal, now: _now, ...rest } = store.snapshot();
  return JSON.stringify(rest);
}

export function expectWithinCaps(store: Store): void {
  expect(store.cases.size).toBeLessThanOrEqual(LIMITS.cases);
  expect(store.notifications.size).toBeLessThanOrEqual(LIMITS.notifications);
  const state = store.snapshot();
  expect(state.journal.length).toBeLessThanOrEqual(LIMITS.journal);
  expect(state.blocklist_history.length).toBeLessThanOrEqual(LIMITS.blocklistHistory);
  expect(state.blocklist.length).toBeLessThanOrEqual(1);
  for (const c of state.cases) expect(JSON.stringify(c).length).toBeLessThanOrEqual(LIMITS.caseBytes);
  // The state must stay serialisable: one stored value that JSON.stringify cannot handle breaks /state.
  expect(() => JSON.stringify(state)).not.toThrow();
}

/** Nothing was planted on Object.prototype by a `__proto__` key somewhere in a body. */
export function expectPrototypeClean(): void {
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).p).toBeUndefined();
}
