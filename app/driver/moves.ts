/**
 * The moves of the scenario driver (scenario-driver.ts): post a trigger, post an approver's decision, read
 * the state, wait for a quiet journal, and reach a resume URL n8n names by a host only the lab network
 * knows.
 */

import type { MockApiClient } from '../mock-api-client/client.js';
import { type StateReading, StateReadingSchema } from '../mock-api-client/readings.js';
import { postResume as postDecision } from './resume.js';
import type { Timing } from './timing.js';

/**
 * POSTs to a trigger and returns the status it finally answered. A freshly published n8n webhook answers
 * 404 for about a second after readiness, so a 404 is retried until the phase time is up; unless
 * `listens` says no published workflow holds the path at all: then nothing is coming, and the 404 stands.
 */
export async function postTrigger(
  url: string,
  payload: unknown,
  timing: Timing,
  note: (message: string) => void,
  headers: Record<string, string> = {},
  listens?: () => Promise<boolean | null>,
): Promise<number> {
  const deadline = performance.now() + timing.phaseTimeoutMs;
  for (;;) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(payload),
    });
    await response.body?.cancel();
    if (response.status !== 404 || performance.now() > deadline) return response.status;
    if ((await listens?.()) === false) return response.status;
    note(`POST ${new URL(url).pathname} answered 404; retrying`);
    await sleep(Math.max(timing.pollMs, 250));
  }
}

/**
 * POSTs an approver's decision (resume.ts), retrying n8n's early 404/409 briefly; every answer but
 * a 2xx is noted. Returns the last status, or null when the URL could not be reached.
 */
export async function postResume(
  url: string,
  body: unknown,
  timing: Timing,
  note: (message: string) => void,
): Promise<number | null> {
  const said = (status: number) => note(`resume POST answered ${status}`);
  try {
    const { status } = await postDecision(url, body, {
      retryOn: [404, 409],
      retryForMs: Math.min(10_000, timing.phaseTimeoutMs),
      intervalMs: Math.max(timing.pollMs, 250),
      onRetry: said,
    });
    if (status < 200 || status > 299) said(status);
    return status;
  } catch (error) {
    note(`resume POST to ${new URL(url).origin} failed: ${error instanceof Error ? error.message : error}`);
    return null;
  }
}

/** GET /state, parsed; null (with a note) when it did not answer a state. */
export async function readState(
  api: MockApiClient,
  note: (message: string) => void,
): Promise<StateReading | null> {
  try {
    const answer = await api.request('GET', '/state');
    const parsed = StateReadingSchema.safeParse(answer.body);
    if (answer.status === 200 && parsed.success) return parsed.data;
    note(`GET /state answered ${answer.status}${parsed.success ? '' : ' (not a state)'}`);
  } catch (error) {
    note(`GET /state failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return null;
}

/**
 * The quiet-journal judgement: polls until the verdict passes and the journal has stayed unchanged for
 * settleMs (a stray request that comes just after a passing state still fails), or the deadline passes.
 * Returns the verdict of the last state seen, with that state and whether the wait ran out (the deadline
 * passed with the verdict not settled and the run not seen ended); null when no state was ever read.
 */
export async function waitUntilSettled<V extends { pass: boolean }>(options: {
  readState: () => Promise<StateReading | null>;
  onState?: (state: StateReading) => Promise<void>;
  judge: (state: StateReading) => V;
  timing: Timing;
  deadline: number;
  /**
   * The stimulus's run has ended (n8n's execution finished, errored, was stopped): nothing more can come
   * of it, so the state read after it is the last word, passing or failing, and no quiet time is needed.
   */
  runEnded?: () => Promise<boolean>;
}): Promise<{ verdict: V; state: StateReading; ranOut: boolean } | null> {
  const { timing } = options;
  let last: { verdict: V; state: StateReading; ranOut: boolean } | null = null;
  let stable: { seq: number; since: number } | null = null;
  for (;;) {
    // Asked before the state is read, so that the state read is one taken after the run ended.
    const ended = (await options.runEnded?.()) ?? false;
    const state = await options.readState();
    if (state !== null) {
      await options.onState?.(state);
      last = { verdict: options.judge(state), state, ranOut: false };
      if (ended) return last;
      const seq = state.journal.at(-1)?.seq ?? 0;
      if (!last.verdict.pass) stable = null;
      else if (stable === null || stable.seq !== seq) stable = { seq, since: performance.now() };
      else if (performance.now() - stable.since >= timing.settleMs) return last;
    }
    if (performance.now() > options.deadline) return last && { ...last, ranOut: true };
    await sleep(timing.pollMs);
  }
}

/** n8n builds resume URLs from its WEBHOOK_URL, which may name a host only the lab network knows. */
export function rewriteOrigin(url: string, origin: string | undefined): string {
  if (origin === undefined) return url;
  const target = new URL(origin);
  const rewritten = new URL(url);
  rewritten.protocol = target.protocol;
  rewritten.host = target.host;
  return rewritten.toString();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
