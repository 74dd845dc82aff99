/**
 * The service clock: real time plus an offset a trainer can advance (POST /control/clock), so that
 * expiry can be shown in seconds. `realNow` is injected so tests run on a fake clock.
 */
export interface Clock {
  now(): number;
  advance(ms: number): void;
  reset(): void;
}

export function createClock(realNow: () => number = Date.now): Clock {
  let offset = 0;
  return {
    now: () => realNow() + offset,
    advance: (ms) => {
      offset += ms;
    },
    reset: () => {
      offset = 0;
    },
  };
}

let lastMs = Number.NaN;
let lastIso = '';
/**
 * ISO 8601 for a millisecond time. Remembers the last one: under load most requests in a millisecond
 * stamp the same time (journal, log line, record), and formatting a Date is a measurable part of a
 * cheap request's cost.
 */
export function iso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
