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

export const iso = (ms: number): string => new Date(ms).toISOString();
