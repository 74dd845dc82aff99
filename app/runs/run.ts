/**
 * The run a stimulus caused, as the workflow target shows it (n8n's execution through its public API, or the
 * reference host's run record): its status, and the nodes that ran in order with their errors and output.
 * The scenario driver watches it to stop waiting once the run has ended (nothing more can come of it), and
 * the checker points each FAIL and UNJUDGED line at it.
 */

/** One node of a run, in the order the run reached it. */
export interface RunNode {
  /** The node's id in the run's workflow (the editor opens the node by it); null when the target has none. */
  id: string | null;
  name: string;
  /** n8n's node type (n8n-nodes-base.httpRequest); null when the target does not say. */
  type: string | null;
  /** The error the node ended with; null when it did not error. */
  error: string | null;
  /** The node's output items (each item's json), all runs of the node together. */
  output: unknown[];
  /** For an HTTP Request node: the URL it was given (an expression, unresolved); null otherwise. */
  url: string | null;
}

export interface RunView {
  id: string;
  /** The editor's address of this run, to open it (`<editor>/workflow/<id>/executions/<execution id>`);
   * null when the target has no editor. `<url>/<node id>` opens the run at that node's panel. */
  url: string | null;
  /** n8n's words: new, running, waiting, success, error, canceled, crashed. */
  status: string;
  nodes: RunNode[];
  /** The last node that ran (n8n's lastNodeExecuted). */
  lastNode: string | null;
  /**
   * When the run was busy (its nodes ran), ms since the epoch on the target's clock, oldest first: a run is
   * not busy while it waits for its approval, so what another run did then is not its own. Absent when the
   * target does not say.
   */
  busy?: BusySpan[];
}

/** A time a run was busy: [from, to], ms since the epoch. */
export type BusySpan = [number, number];

/** Node times merged into a run's busy spans: spans closer than this are one (nodes follow each other). */
const BUSY_GAP_MS = 1000;

/** The spans, oldest first, merged where they overlap or follow within BUSY_GAP_MS. */
export function mergeBusy(spans: readonly BusySpan[]): BusySpan[] {
  const merged: BusySpan[] = [];
  for (const [from, to] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = merged.at(-1);
    if (last !== undefined && from <= last[1] + BUSY_GAP_MS) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/**
 * The header each stimulus carries with its own id (its event_id, also when the alert leaves event_id out on
 * purpose): n8n's Webhook node keeps the request's headers in its output, so the run is found by it.
 */
export const STIMULUS_HEADER = 'x-soar-stimulus';

/** A run's status after which it can produce nothing more. */
export const ENDED_STATUSES: readonly string[] = ['success', 'error', 'canceled', 'crashed'];
export const hasEnded = (status: string) => ENDED_STATUSES.includes(status);

/** What a look-up found: the run, none (yet), or no answer from the target (busy, or refusing the key). */
export type RunLookup =
  | { kind: 'found'; run: RunView }
  | { kind: 'none' }
  /** refused: n8n answered, but not to this key (401/403): no run can be found, and that is no verdict. */
  | { kind: 'unreachable'; detail: string; refused: boolean };

export interface RunQuery {
  /** The stimulus's event_id: its run carries it in its data. */
  eventId: string;
  /** The webhook path the stimulus was posted to: the run is of the workflow that listens there. */
  path: string;
  /** When the stimulus was sent: its run started after. */
  sentAt: Date;
  /** Runs already claimed by an earlier stimulus of the same event (the duplicate's first delivery). */
  exclude: readonly string[];
}

/** Where the runs of a target are found. */
export interface RunSource {
  /** The run the stimulus caused, with its node data. */
  find(query: RunQuery): Promise<RunLookup>;
  /** The status of a known run, cheaply (polled while the driver waits). */
  status(id: string): Promise<string | null>;
  /** Stops the runs of the path's workflow started since then that still run or wait, so that none can
   * write into the next stimulus's state; false when the target did not answer. */
  stop(path: string, since: Date): Promise<boolean>;
  /**
   * Whether a published workflow holds a webhook on the path (one just published answers 404 for a moment
   * all the same); null when the target cannot tell. Absent: the target is never asked.
   */
  listens?(path: string): Promise<boolean | null>;
}

/** A run as a list of runs shows it (n8n's executions list): cheap to poll. */
export interface RunHead {
  id: string;
  /** n8n's words: new, running, waiting, success, error, canceled, crashed. */
  status: string;
  startedAt: string;
  stoppedAt: string | null;
  workflowId: string | null;
  /** How it started: webhook (a POST to its webhook), manual (the editor's Execute workflow), ... */
  mode: string;
  /** The editor's address of the run, when the list says enough to make it (RunView's url). */
  url?: string | null;
}

/** A run with its data, as the tutor explains it. */
export interface RunDetail {
  head: RunHead;
  view: RunView;
  /** The name of the workflow that ran. */
  workflow: string;
  /** The Webhook node's item (headers, params, query, body); null when no Webhook node ran. */
  trigger: { headers?: unknown; body?: unknown } | null;
}

/** The runs of a workflow platform, newest first, and one run's data. */
export interface RunFeed {
  /** The newest `limit` runs, and every run that still runs or waits however old (up to the feed's cap). */
  recent(limit: number): Promise<RunHead[]>;
  /** Null when the run is gone (pruned, or another id); RunTooLargeError when its data is over the cap. */
  detail(id: string): Promise<RunDetail | null>;
}

/** A run whose data is larger than a reader takes (`bytes`: its size when it was said, else null). */
export class RunTooLargeError extends Error {
  constructor(
    readonly bytes: number | null,
    readonly limit: number,
  ) {
    super(`the run's data is over ${limit} bytes`);
  }
}
