/**
 * What the tutor says of one run, as the console's "Your runs" panel shows it: read from the run itself
 * (n8n's execution data) and from what the mock API received from it, judged by the checker's own
 * expectations. Never a claim the run and the state do not show: what cannot be told says so.
 */
import type { RunSummary, RunVerdict } from '../check-report/runs.js';
import type { StageName } from '../stages/stages.js';

/** A stage the run went through and what it did there, in the trainee's terms. */
export interface StageStep {
  stage: StageName;
  title: string;
  /** The run's nodes of that stage, in the order they ran. */
  nodes: string[];
  /** One line: "GET /identity/lab-admin answered 200", "stopped the run: Alert rejected: ...". */
  did: string;
}

/** What one of the four systems received from the run. */
export interface Received {
  /** identity, case, notification or blocklist. */
  system: 'identity' | 'case' | 'notification' | 'blocklist';
  /** `POST /blocklist (201)`. */
  request: string;
  /** What it holds now for the alert's event, when the request wrote something. */
  holds: string | null;
}

/** The first expectation the run did not meet, as the checker would say it. */
export interface Unmet {
  stage: StageName;
  expectation: string;
  hint: string;
  /** `<field or request>: want <x>, got <y>`. */
  mismatch: string | null;
  /** The node to blame and why (the checker's run pointer). */
  node: string | null;
  why: string;
}

export interface Explanation {
  execution_id: string;
  /** The editor's address of the run; at the node to blame when there is one. */
  url: string | null;
  workflow: string;
  from_editor: boolean;
  /** n8n's status: success, error, waiting, canceled, crashed. */
  status: string;
  started_at: string;
  stopped_at: string | null;
  /** The alert the Webhook received (its body), null when the run has none (a run without a Webhook). */
  alert: Record<string, unknown> | null;
  /** The alert's row of the acceptance matrix, or `other`. */
  kind: string;
  /** The row in words: "positive: confidence 92, a new event, the approver approved". */
  kind_text: string;
  stages: StageStep[];
  received: Received[];
  /** False when another run overlapped this one in time: some requests could belong to either. */
  received_certain: boolean;
  verdict: RunVerdict;
  unmet: Unmet | null;
  /** One line for the verdict: "stopped after Valid?, where Enrich was expected". */
  summary: string;
}

/** The line the class board and the class report keep of an explanation. */
export function summaryOf(e: Explanation): RunSummary {
  const reached = e.stages.at(-1)?.stage ?? null;
  return {
    execution_id: e.execution_id,
    url: e.url,
    workflow: e.workflow,
    from_editor: e.from_editor,
    status: e.status,
    started_at: e.started_at,
    stopped_at: e.stopped_at,
    kind: e.kind,
    reached,
    verdict: e.verdict,
    unmet_stage: e.unmet?.stage ?? null,
  };
}
