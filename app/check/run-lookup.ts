/**
 * The run of a checked scenario's judged stimulus, looked up once the drive is over: its node data, for the
 * run pointer and the Webhook stage's execution data.
 */
import type { DriverEvidence, SentStimulus } from '../driver/scenario-driver.js';
import { isOk } from '../driver/scenario-driver.js';
import type { Timing } from '../driver/timing.js';
import type { RunKnowledge } from '../judges/run-pointer.js';
import type { ExecutionFinding } from '../judges/scenarios.js';
import { missingFields } from '../n8n/executions.js';
import { hasEnded, type RunLookup, type RunSource } from '../runs/run.js';

/** The judged stimulus's run, what the run pointer may say of it, and how long its look-up took (ms). */
export interface JudgedRun {
  /** Undefined when nothing was looked up: no run source, or no stimulus accepted. */
  lookup: RunLookup | undefined;
  knowledge: RunKnowledge;
  lookupMs: number;
}

/** Looks up the run of the judged stimulus, with its node data, when there is a run source. */
export async function lookUpJudgedRun(
  runs: RunSource | undefined,
  eventId: string,
  evidence: DriverEvidence,
  timing: Timing,
): Promise<JudgedRun> {
  const judged = judgedStimulus(evidence);
  const began = performance.now();
  const lookup = await lookUpRun(runs, eventId, evidence.sent, judged);
  const lookupMs = performance.now() - began;
  const knowledge: RunKnowledge =
    runs === undefined
      ? { kind: 'unknown' }
      : lookup === undefined
        ? { kind: 'not-sent' }
        : {
            kind: 'looked',
            lookup,
            phaseSeconds: timing.phaseTimeoutMs / 1000,
            atPhaseEnd:
              evidence.ranOut && judged !== undefined
                ? { status: judged.status, decided: isOk(evidence.marks.resumeStatus) }
                : null,
          };
  return { lookup, knowledge, lookupMs };
}

/**
 * The stimulus the verdict is about: the first delivery's when its run never finished (the follow-up was then
 * not sent, or its expectations hang on the first), else the last one's; undefined when none was accepted.
 */
function judgedStimulus({ sent, marks }: DriverEvidence): SentStimulus | undefined {
  return marks.firstRunDone === false ? sent[0] : sent.at(-1);
}

/**
 * The run of the judged stimulus, with its node data. Undefined when nothing was looked up: no run source, or
 * no stimulus accepted.
 */
async function lookUpRun(
  runs: RunSource | undefined,
  eventId: string,
  sent: readonly SentStimulus[],
  stimulus: SentStimulus | undefined,
): Promise<RunLookup | undefined> {
  if (runs === undefined || stimulus === undefined) return undefined;
  // Found already ended while the driver waited: its data then was its last, and is not asked for again.
  if (stimulus.found !== null && hasEnded(stimulus.found.status))
    return { kind: 'found', run: stimulus.found };
  const exclude = sent.flatMap((s) => (s !== stimulus && s.runId !== null ? [s.runId] : []));
  const lookup = await runs.find({ eventId, path: stimulus.path, sentAt: stimulus.sentAt, exclude });
  // n8n gave no answer now (busy), but found the run while the driver waited: that run, as last seen.
  if (lookup.kind !== 'found' && stimulus.found !== null)
    return { kind: 'found', run: { ...stimulus.found, status: stimulus.status ?? stimulus.found.status } };
  return lookup;
}

/** The Webhook stage's execution-data judgement, from the run found. */
export function findingOf(lookup: RunLookup, sent: Record<string, unknown>): ExecutionFinding {
  switch (lookup.kind) {
    case 'found':
      return {
        kind: 'found',
        executionId: lookup.run.id,
        missing: missingFields(
          lookup.run.nodes.map((n) => n.output),
          sent,
        ),
      };
    case 'none':
      return { kind: 'not-found', detail: 'no execution carries the event_id' };
    case 'unreachable':
      return { kind: 'error', detail: lookup.detail };
  }
}
