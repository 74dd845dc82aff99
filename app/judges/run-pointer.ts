/**
 * Where a FAIL or UNJUDGED line points: the run its stimulus caused (n8n's execution, found by its
 * event_id) and the node where it went wrong, in this order: the node that errored; the last node that
 * ran, when the expectation needed a later one ("nothing after Validate ran"); the first node whose output
 * lacks the field the expectation needed; else the stage's first node that ran, or no node (an honest
 * null). A run that had not ended (or not arrived) when the phase ended makes a failing line UNJUDGED, also
 * when it has ended by the time it is looked up: the state judged was taken before the run was done, so the
 * host was busy, the workflow was not shown wrong.
 */

import type { RunPointer } from '../check-report/report.js';
import { walk } from '../judging/approval-request.js';
import { hasEnded, type RunLookup, type RunNode, type RunView } from '../runs/run.js';
import { STAGE_NAMES, type StageName } from '../stages/stages.js';
import { stageOfNode } from '../workflow/guide/response.js';
import type { ExecutionFinding, Expectation, Outcome } from './scenarios.js';

const STOP_AND_ERROR = 'n8n-nodes-base.stopAndError';

/** What the checker knows of a stimulus's run when it judges. */
export type RunKnowledge =
  /** No run source (no API key): nothing to point at, verdicts as the journal shows them. */
  | { kind: 'unknown' }
  /** The stimulus was not accepted: nothing ran for it. */
  | { kind: 'not-sent' }
  | { kind: 'looked'; lookup: RunLookup; phaseSeconds: number; atPhaseEnd: PhaseEnd | null };

/**
 * The run as the driver last saw it when its wait ran out (null: the wait ended sooner, on a settled verdict
 * or on the run's end, so the state judged is the run's own last word).
 */
export interface PhaseEnd {
  /** n8n's status of the run then; null: the run had not been found by then. */
  status: string | null;
  /** The approver's decision was accepted (a 2xx from the resume URL): a run still waiting had been resumed. */
  decided: boolean;
}

/** The run had more to do when the phase ended: not arrived, not ended, or resumed but not yet going on. */
export function unfinishedAt(end: PhaseEnd): boolean {
  if (end.status === null) return true;
  if (end.status === 'waiting') return end.decided;
  return !hasEnded(end.status);
}

export const nothingRan = (path: string) =>
  `nothing ran: is the workflow published, is the Webhook path \`${path}\`?`;

/** The line a failing expectation gets when its run had not ended when the phase did. */
export const notRunWithin = (seconds: number) =>
  `n8n did not run it within ${seconds} s (the host is busy: check again)`;

/** A failing outcome, kept or made UNJUDGED, and the run it points at (none on a pass). */
export function pointAt(
  expectation: Expectation,
  outcome: Outcome,
  knowledge: RunKnowledge,
  context: { webhookPath: string; execution: ExecutionFinding | undefined },
): { outcome: Outcome; run: RunPointer | null } {
  if (outcome.status === 'pass' || knowledge.kind === 'unknown') return { outcome, run: null };
  const none = { execution_id: null, url: null, status: null, node: null };
  if (knowledge.kind === 'not-sent')
    return { outcome, run: { ...none, why: nothingRan(context.webhookPath) } };
  const { lookup, phaseSeconds, atPhaseEnd } = knowledge;
  const late = (why: string, run: RunView | null): { outcome: Outcome; run: RunPointer } => ({
    outcome: outcome.status === 'fail' ? { status: 'unjudged', hint: notRunWithin(phaseSeconds) } : outcome,
    run: run === null ? { ...none, why } : { ...pointerAt(run, run.lastNode), why },
  });
  if (lookup.kind === 'none') return late(nothingRan(context.webhookPath), null);
  if (lookup.kind === 'unreachable' && lookup.refused)
    return { outcome, run: { ...none, why: lookup.detail } };
  if (lookup.kind === 'unreachable') return late(`n8n's API did not answer: ${lookup.detail}`, null);
  const { run } = lookup;
  if (run.status === 'new' || run.status === 'running')
    return late(
      `the run was still ${run.status}${run.lastNode ? ` at ${run.lastNode}` : ''} after ${phaseSeconds} s`,
      run,
    );
  if (atPhaseEnd !== null && unfinishedAt(atPhaseEnd))
    return late(
      `${atPhaseEnd.status === null ? 'the run was not found' : `the run was still ${atPhaseEnd.status}`} when ` +
        `the wait for it ran out${hasEnded(run.status) ? `; it ended (${run.status}) only after` : ''}`,
      run,
    );
  const { node, why } = blame(run, expectation.stage, context.execution);
  return { outcome, run: { ...pointerAt(run, node), why } };
}

/**
 * The run and the node to blame, its address opening that node's panel in the run (n8n's execution view
 * takes the node's id after the execution's: `.../executions/<execution id>/<node id>`).
 */
export function pointerAt(run: RunView, node: string | null): Omit<RunPointer, 'why'> {
  const id = run.nodes.find((n) => n.name === node)?.id ?? null;
  const url = run.url !== null && id !== null ? `${run.url}/${encodeURIComponent(id)}` : run.url;
  return { execution_id: run.id, url, status: run.status, node };
}

/** The node to blame and why, in a run that is not running any more (ended, or waiting). */
export function blame(
  run: RunView,
  stage: StageName,
  execution: ExecutionFinding | undefined,
): { node: string | null; why: string } {
  // A Stop and Error node stops a run on purpose (a rejected alert): not the place of a mistake.
  const errored = run.nodes.find((n) => n.error !== null && n.type !== STOP_AND_ERROR);
  if (errored !== undefined) return { node: errored.name, why: `${errored.name} errored: ${errored.error}` };

  if (execution?.kind === 'found' && execution.missing.length > 0) {
    for (const node of run.nodes.filter((n) => n.output.length > 0)) {
      const lacks = execution.missing.find((field) => !outputHas(node, field));
      if (lacks !== undefined) return { node: node.name, why: `${node.name}'s output has no ${lacks}` };
    }
  }

  const wanted = STAGE_NAMES.indexOf(stage);
  const stages = run.nodes.map((n) => stageOf(n));
  const reached = stages.some((s) => s !== null && STAGE_NAMES.indexOf(s) >= wanted);
  const last = run.lastNode;
  const lastStage = run.nodes.find((n) => n.name === last);
  const before = lastStage !== undefined && (stageOf(lastStage) ?? stage) !== stage;
  if (stage !== 'webhook' && !reached && before && last !== null) {
    return {
      node: last,
      why: `nothing after ${last} ran${run.status === 'waiting' ? ' (the run is waiting there)' : ''}`,
    };
  }
  const own = run.nodes.find((n) => stageOf(n) === stage);
  if (own !== undefined)
    return { node: own.name, why: `the run went through ${own.name}: the hint says what it did not do` };
  return {
    node: null,
    why: `the run ${run.status === 'waiting' ? 'is waiting' : `ended (${run.status})`}${last ? ` after ${last}` : ''}`,
  };
}

/** The stage a node belongs to: by the guide's node names, else by what the node calls. */
export function stageOf(node: RunNode): StageName | null {
  const stage = stageOfNode(node.name);
  if (stage !== null) return stage;
  if (node.type === 'n8n-nodes-base.webhook') return 'webhook';
  if (node.type === 'n8n-nodes-base.wait') return 'approve';
  const url = node.url ?? '';
  if (url.includes('/identity')) return 'enrich';
  if (url.includes('/blocklist')) return 'block';
  return null;
}

function outputHas(node: RunNode, field: string): boolean {
  let seen = false;
  walk(node.output, (key) => {
    if (key === field) seen = true;
  });
  return seen;
}
