/**
 * How patient the acceptance matrix and the stage checker are with each workflow target, written once:
 * the checker keeps the matrix's polling and settling and bounds a failing expectation sooner, since a
 * trainee waits for its answer.
 */

export interface Timing {
  /** Between two GET /state polls. */
  pollMs: number;
  /** A passing state must stay unchanged (same journal) this long: a late stray request still fails. */
  settleMs: number;
  /** How long one phase of a case may take, approval wait excluded. */
  phaseTimeoutMs: number;
  /** How late the target may notice a passed approval time limit (n8n checks once a minute). */
  approvalLatenessMs: number;
}

/** Per target: in process everything answers within milliseconds; the limits only bound a failing case. n8n
 * checks due Wait time limits once a minute, so they fire up to ~60 s late. */
export const MATRIX_TIMING = {
  reference: { pollMs: 50, settleMs: 250, phaseTimeoutMs: 10_000, approvalLatenessMs: 2_000 },
  n8n: { pollMs: 500, settleMs: 2_000, phaseTimeoutMs: 60_000, approvalLatenessMs: 75_000 },
} as const satisfies Record<'reference' | 'n8n', Timing>;

/**
 * The stage checker's: n8n's runs start within a second, so a phase that has not ended in 30 s failed. A
 * trainee waits for each stimulus's run to be seen ended (its status polled; the state read after it is the
 * last word), so n8n is asked every 100 ms: a poll is one small read of n8n and one of the mock API, and a
 * slower poll adds half its period to every stimulus on average.
 */
export const CHECK_TIMING = {
  reference: { ...MATRIX_TIMING.reference, phaseTimeoutMs: 3_000, approvalLatenessMs: 1_000 },
  n8n: { ...MATRIX_TIMING.n8n, pollMs: 100, phaseTimeoutMs: 30_000 },
} as const satisfies Record<'reference' | 'n8n', Timing>;
