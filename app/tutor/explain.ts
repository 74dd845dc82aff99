/**
 * One run explained: which alert it was, the stages it went through and what each did, what the four
 * systems received from it, and the first expectation of the exercise it did not meet, judged by the
 * checker's own expectations on the state as that run left it (./scope.ts). What cannot be told is said:
 * a run that overlapped another is not judged, nor one whose window the state no longer holds (the lab was
 * reset or restarted after it began, or a later run wrote its event's records again); a run stopped before
 * it ended (canceled by Reset or in the editor, crashed) says so and is not judged; a waiting run is judged
 * up to its approval request.
 */
import { DEFAULT_MAPPING } from '../judges/mapping.js';
import { blame, pointerAt, stageOf } from '../judges/run-pointer.js';
import type { Evidence, Facts, Marks } from '../judges/scenarios.js';
import type { JournalEntryReading, StateReading } from '../mock-api-client/readings.js';
import { type BusySpan, type RunDetail, type RunView, STIMULUS_HEADER } from '../runs/run.js';
import { STAGE_NAMES, STAGE_TITLES } from '../stages/stages.js';
import { RESPONSE_WEBHOOK_PATH, ROLLBACK_WEBHOOK_PATH } from '../workflow/constants.js';
import { type Approval, classify, isRollbackTrigger } from './classify.js';
import type { Explanation, Received, StageStep, Unmet } from './explanation.js';
import {
  earlierDelivery,
  goneFromState,
  type RunWindow,
  runRequests,
  scopedState,
  stateAt,
} from './scope.js';

/** The most of an alert an explanation keeps (its JSON), so that a page holds it whatever was posted. */
export const ALERT_SHOWN_BYTES = 4096;
/** The most of one string field of an alert shown, when the alert is over ALERT_SHOWN_BYTES. */
const FIELD_SHOWN_CHARS = 200;
/** The most fields of a cut alert shown. */
const FIELDS_SHOWN = 40;

/**
 * The alert as an explanation keeps it: whole when its JSON is within ALERT_SHOWN_BYTES, else its first
 * fields, long strings and nested values cut, with `…` saying what was left out.
 */
export function alertShown(alert: Record<string, unknown> | null): Record<string, unknown> | null {
  if (alert === null) return null;
  const json = JSON.stringify(alert);
  if (Buffer.byteLength(json) <= ALERT_SHOWN_BYTES) return alert;
  const cut: Record<string, unknown> = {};
  const keys = Object.keys(alert);
  for (const key of keys.slice(0, FIELDS_SHOWN)) {
    const value = alert[key];
    const shown = typeof value === 'string' ? value : JSON.stringify(value);
    cut[key.slice(0, FIELD_SHOWN_CHARS)] =
      typeof value === 'string' || typeof value === 'object'
        ? shown.length > FIELD_SHOWN_CHARS
          ? `${shown.slice(0, FIELD_SHOWN_CHARS)}… (${shown.length} characters)`
          : value
        : value;
  }
  cut['…'] =
    `the alert is ${Buffer.byteLength(json)} bytes: ${Math.min(keys.length, FIELDS_SHOWN)} of its ${keys.length} fields shown, long values cut`;
  return cut;
}

export interface ExplainInput {
  detail: RunDetail;
  /** The mock API's state when the run was explained. */
  state: StateReading;
  /** Another run's window overlaps this one's: requests made in it cannot be told apart. */
  overlapping: boolean;
  /** The alert's user as the identity system answers it; null when it does not know them. */
  identity: Record<string, unknown> | null;
  /** When (this host's clock, ms) the state was read: with the state's `now`, the mock API's clock. */
  stateReadAt?: number;
  /** What an earlier read of the same run said (it waited then): what it received is kept from it. */
  earlier?: Explanation | undefined;
}

/** A difference of clocks below this is the time the state took to come, not a moved clock. */
const CLOCK_MOVED_MS = 2000;
/** The margin of a window shifted to a moved clock: the shift is known only as well as that. */
const SHIFT_MARGIN_MS = 250;

/**
 * The run's window on the mock API's clock, which a trainer may have moved (its journal and records carry
 * that clock's times, n8n's run its own): shifted by the difference the state's `now` shows.
 */
function serviceWindow(input: ExplainInput): RunWindow {
  const now = (input.state as { now?: unknown }).now;
  const offset = typeof now === 'string' ? Date.parse(now) - (input.stateReadAt ?? Date.now()) : 0;
  const { startedAt, stoppedAt } = input.detail.head;
  const { busy } = input.detail.view;
  if (!Number.isFinite(offset) || Math.abs(offset) < CLOCK_MOVED_MS) return { startedAt, stoppedAt, busy };
  const shift = (iso: string, margin: number) => new Date(Date.parse(iso) + offset + margin).toISOString();
  return {
    startedAt: shift(startedAt, -SHIFT_MARGIN_MS),
    stoppedAt: stoppedAt === null ? null : shift(stoppedAt, SHIFT_MARGIN_MS),
    busy: busy?.map(
      ([from, to]): BusySpan => [from + offset - SHIFT_MARGIN_MS, to + offset + SHIFT_MARGIN_MS],
    ),
  };
}

const ENDED = new Set(['success', 'error', 'canceled', 'crashed']);
/** n8n's statuses of a run ended before it finished: canceled (stopped by Reset, the editor, or n8n), crashed. */
const STOPPED = new Set(['canceled', 'crashed']);

/** A run the checker caused (its stimuli carry their own header): the checker explains those itself. */
export function fromChecker(detail: RunDetail): boolean {
  const headers = detail.trigger?.headers;
  return typeof headers === 'object' && headers !== null && STIMULUS_HEADER in headers;
}

const asObject = (v: unknown): Record<string, unknown> | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;

/** What the run shows of the approval: the Wait node's resume (its body's decision), or none. */
function approvalOf(run: RunView): Approval {
  const wait = run.nodes.find((n) => n.type === 'n8n-nodes-base.wait');
  if (wait === undefined) return 'none';
  if (run.status === 'waiting' && run.lastNode === wait.name) return 'waiting';
  const item = asObject(wait.output[0]);
  const body = asObject(item?.body);
  // Stopped while it waited: neither answered nor timed out.
  if (STOPPED.has(run.status) && (item === null || item.headers === undefined)) return 'none';
  if (item === null || body === null || item.headers === undefined) return 'timed_out';
  return body.decision === DEFAULT_MAPPING.approval.approve.decision ? 'approve' : 'reject';
}

const SYSTEMS: [RegExp, Received['system']][] = [
  [/^\/identity\//, 'identity'],
  [/^\/cases/, 'case'],
  [/^\/notify/, 'notification'],
  [/^\/blocklist/, 'blocklist'],
];

function receivedOf(requests: JournalEntryReading[], scoped: StateReading): Received[] {
  return requests.flatMap((j) => {
    const system = SYSTEMS.find(([re]) => re.test(j.path))?.[1];
    if (system === undefined) return [];
    let holds: string | null = null;
    const wrote = j.method !== 'GET' && j.status >= 200 && j.status < 300;
    if (wrote && system === 'case') {
      const c = scoped.cases[0];
      holds = c === undefined ? null : `case ${c.event_id}: ${c.final_action ?? '?'} / ${c.result ?? '?'}`;
    } else if (wrote && system === 'blocklist' && j.method === 'POST') {
      const b = scoped.blocklist[0];
      holds = b === undefined ? null : `${b.ip} blocked for ${b.expires_minutes} min`;
    }
    return [{ system, request: `${j.method} ${j.path} (${j.status})`, holds }];
  });
}

function stagesOf(run: RunView): StageStep[] {
  const steps: StageStep[] = [];
  for (const node of run.nodes) {
    const stage = stageOf(node);
    if (stage === null) {
      steps.at(-1)?.nodes.push(node.name);
      continue;
    }
    const step = steps.find((s) => s.stage === stage) ?? {
      stage,
      title: STAGE_TITLES[stage],
      nodes: [],
      did: '',
    };
    if (!steps.includes(step)) steps.push(step);
    step.nodes.push(node.name);
    if (node.error !== null)
      step.did = `${node.type === 'n8n-nodes-base.stopAndError' ? 'stopped the run' : `${node.name} errored`}: ${node.error}`;
  }
  for (const step of steps) if (step.did === '') step.did = `ran ${step.nodes.join(', ')}`;
  return steps.sort((a, b) => STAGE_NAMES.indexOf(a.stage) - STAGE_NAMES.indexOf(b.stage));
}

export function explainRun(input: ExplainInput): Explanation {
  const { detail, state } = input;
  const run = detail.view;
  const alert = asObject(detail.trigger?.body);
  const eventId = typeof alert?.event_id === 'string' ? alert.event_id : null;
  const window = serviceWindow(input);
  const requests = runRequests(state, window, eventId);
  const scoped = scopedState(state, requests, eventId, window);
  const startedMs = Date.parse(window.startedAt);
  const caseBefore = state.cases.some(
    (c) => c.event_id === eventId && typeof c.created_at === 'string' && Date.parse(c.created_at) < startedMs,
  );
  const approval = approvalOf(run);
  const classified =
    alert === null
      ? null
      : classify({
          alert,
          knownUser: input.identity !== null,
          caseBefore,
          connectorFailed: requests.some(
            (j) => j.method === 'POST' && j.path === '/cases' && j.status >= 500,
          ),
          approval,
        });
  const base = {
    execution_id: run.id,
    url: run.url,
    workflow: detail.workflow,
    from_editor: detail.head.mode === 'manual',
    status: run.status,
    started_at: detail.head.startedAt,
    stopped_at: detail.head.stoppedAt,
    alert: alertShown(alert),
    kind: classified?.kind ?? 'other',
    kind_text: classified?.text ?? 'no alert of the exercise (the Webhook received no JSON object)',
    stages: stagesOf(run),
    received: receivedOf(requests, scoped),
    received_certain: !input.overlapping,
    ...(run.busy === undefined ? {} : { busy: run.busy }),
  };
  const waiting = run.status === 'waiting';
  if (classified === null || classified.expectations.length === 0)
    return {
      ...base,
      verdict: 'cannot-tell',
      unmet: null,
      summary: `${base.kind_text}: nothing to judge it by`,
    };
  const gone = goneFromState(state, window, eventId);
  if (STOPPED.has(run.status)) {
    const { earlier } = input;
    const why =
      gone === 'reset'
        ? "stopped by Reset: the lab was reset while it ran (the console's Reset, make reset or a stage check)"
        : run.status === 'crashed'
          ? 'stopped: n8n ended it (crashed) before it finished'
          : 'stopped: canceled before it finished (in the editor, or by n8n)';
    return {
      ...base,
      received: earlier?.received ?? (gone === null ? base.received : []),
      received_certain: earlier?.received_certain ?? (gone === null && base.received_certain),
      verdict: 'stopped',
      unmet: null,
      summary: `${why}; a stopped run is not judged`,
    };
  }
  if (gone !== null)
    return {
      ...base,
      received: input.earlier?.received ?? [],
      received_certain: false,
      verdict: 'cannot-tell',
      unmet: null,
      summary:
        gone === 'reset'
          ? "the lab's systems were reset or started again after this run began (Reset, make reset, a stage check, make stop / make start): what it sent is no longer there, so it is not judged"
          : 'a later run of the same event wrote its records again before this run was read: what this one left cannot be told apart, so it is not judged',
    };
  if (input.overlapping)
    return {
      ...base,
      verdict: 'cannot-tell',
      unmet: null,
      summary:
        'another run ran at the same time: what each sent cannot be told apart, so this one is not judged',
    };
  if (!waiting && !ENDED.has(run.status))
    return { ...base, verdict: 'cannot-tell', unmet: null, summary: `the run is ${run.status}` };
  const held = blockedBefore(state, alert ?? {}, startedMs);
  if (held !== null && ['positive', 'approval_pending', 'connector_failure'].includes(base.kind))
    return {
      ...base,
      verdict: 'cannot-tell',
      unmet: null,
      summary: `${held.ip} was blocked already, by the run of ${held.event_id}: Reset the lab (the console's Reset) before sending a positive alert again`,
    };

  const duplicateFrom = classified.kind === 'duplicate_delivery' ? window.startedAt : null;
  const evidence = evidenceOf(input, scoped, requests, duplicateFrom);
  let unmet: Unmet | null = null;
  for (const x of classified.expectations) {
    const outcome = x.judge(evidence);
    if (outcome.status !== 'fail') continue;
    const { node, why } = blame(run, x.stage, undefined);
    unmet = {
      stage: x.stage,
      expectation: x.text,
      hint: outcome.hint ?? '',
      mismatch: outcome.detail ?? null,
      node,
      why,
    };
    break;
  }
  if (unmet !== null) {
    const reached = base.stages.some((s) => STAGE_NAMES.indexOf(s.stage) >= STAGE_NAMES.indexOf(unmet.stage));
    const title = STAGE_TITLES[unmet.stage];
    return {
      ...base,
      url: pointerAt(run, unmet.node).url,
      verdict: 'unmet',
      unmet,
      summary: reached
        ? `${title}: ${unmet.expectation}: not met`
        : `stopped after ${run.lastNode ?? 'its first node'}, where ${title} was expected`,
    };
  }
  return waiting
    ? {
        ...base,
        verdict: 'waiting',
        unmet: null,
        summary: `waiting for the approval at ${run.lastNode ?? 'its Wait node'}; every stage before it as the exercise asks`,
      }
    : {
        ...base,
        verdict: 'as-asked',
        unmet: null,
        summary: 'every stage it went through did what the exercise asks of this alert',
      };
}

/**
 * An active block of the alert's address by another event, made before the run: the exercise's block
 * cannot be made (the mock API refuses it, 409), whatever the workflow does.
 */
function blockedBefore(state: StateReading, alert: Record<string, unknown>, startedMs: number) {
  return (
    state.blocklist.find(
      (b) =>
        b.ip === alert.source_ip &&
        b.event_id !== alert.event_id &&
        typeof b.created_at === 'string' &&
        Date.parse(b.created_at) < startedMs,
    ) ?? null
  );
}

/** The checker's evidence of this run, as the checker's driver would have marked it. */
function evidenceOf(
  input: ExplainInput,
  scoped: StateReading,
  requests: JournalEntryReading[],
  /** A duplicate's run began then (on the mock API's clock): its first delivery is before it. */
  duplicateFrom: string | null,
): Evidence {
  const { detail } = input;
  const alert = asObject(detail.trigger?.body) ?? {};
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const wait = detail.view.nodes.find((n) => n.type === 'n8n-nodes-base.wait');
  const resumed = asObject(asObject(wait?.output[0])?.body);
  const facts: Facts = {
    eventId: str(alert.event_id),
    user: str(alert.user),
    sourceIp: str(alert.source_ip),
    approver: str(resumed?.approver),
  };
  const firstSeq = requests[0]?.seq ?? Number.MAX_SAFE_INTEGER;
  const duplicate = duplicateFrom !== null;
  const state =
    duplicateFrom !== null
      ? {
          ...scoped,
          journal: [...earlierDelivery(scoped, duplicateFrom, firstSeq), ...requests],
        }
      : scoped;
  const request = scoped.notifications.find((n) => typeof n.resume_url === 'string');
  const requestedAt = typeof request?.accepted_at === 'string' ? request.accepted_at : null;
  const marks: Marks = {
    trigger: { status: 200, error: null },
    atApprovalRequest: requestedAt === null ? null : stateAt(state, requestedAt),
    resumeStatus: resumed === null ? null : 200,
    firstRunDone: duplicate ? true : null,
    followUpSeq: duplicate ? firstSeq - 1 : null,
    followUpTrigger: isRollbackTrigger(alert) ? { status: 200, error: null } : null,
  };
  return {
    state,
    facts,
    marks,
    mapping: DEFAULT_MAPPING,
    identity: input.identity,
    execution: undefined,
    webhookPath: RESPONSE_WEBHOOK_PATH,
    rollbackPath: ROLLBACK_WEBHOOK_PATH,
  };
}
