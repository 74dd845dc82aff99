/** The checker's --timings: where each stimulus's time went, and the whole check's. */

/** Where one scenario's time went, in milliseconds. */
export interface ScenarioTimings {
  reset: number;
  trigger: number;
  /** n8n's run, from the alert's answer until it was seen ended; null: not seen ended. */
  run: number | null;
  settle: number;
  /** The run's look-up after the wait (its node data, for the pointer and the Webhook stage). */
  lookup: number;
  total: number;
}

export interface TimedStimulus extends ScenarioTimings {
  stimulus: string;
}

const PHASES = ['reset', 'trigger', 'run', 'settle', 'lookup', 'total'] as const;
const HEADS: Record<(typeof PHASES)[number], string> = {
  reset: 'reset',
  trigger: 'trigger',
  run: "n8n's run",
  settle: 'settle',
  lookup: 'look-up',
  total: 'total',
};

const seconds = (ms: number | null) => (ms === null ? '-' : (ms / 1000).toFixed(2));

/**
 * A table, one stimulus a line, in seconds: reset (POST /reset and the case mode), trigger (the webhook
 * POSTs), n8n's run (from the alert's answer until its run was seen ended; - when it was not), settle (the
 * rest of the wait for evidence: a quiet journal, approvals, a follow-up's run), look-up (the run's data
 * after the wait), total; then the check's wall time.
 */
export function formatTimings(timed: readonly TimedStimulus[], checkSeconds: number): string {
  const width = Math.max(8, ...timed.map((t) => t.stimulus.length));
  const head = `timings (s)  ${'stimulus'.padEnd(width)}  ${PHASES.map((p) => HEADS[p].padStart(9)).join(' ')}`;
  const rows = timed.map(
    (t) =>
      `             ${t.stimulus.padEnd(width)}  ${PHASES.map((p) => seconds(t[p]).padStart(9)).join(' ')}`,
  );
  const sum = (p: (typeof PHASES)[number]) => timed.reduce((a, t) => a + (t[p] ?? 0), 0);
  const total = `             ${'all stimuli'.padEnd(width)}  ${PHASES.map((p) => seconds(sum(p)).padStart(9)).join(' ')}`;
  return [head, ...rows, total, `             the check: ${checkSeconds.toFixed(1)} s`].join('\n');
}
