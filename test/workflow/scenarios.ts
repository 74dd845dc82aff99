/**
 * A table of scripted runs covering every branch of docs/workflow-protocol.md, the drift cases of issue
 * 10 included, and the two ways to run one: the TypeScript reference with a scripted API, and the
 * generated n8n JSON in the simulator (./n8n-sim.ts). Both record the requests they make.
 */
import {
  DEFAULT_SETTINGS,
  REFERENCE_NODES,
  type ResponseNodes,
  ROLLBACK_NODES,
  type RollbackNodes,
  type RunContext,
  runRollback,
  runSuspiciousLogin,
} from '../../app/targets/reference-workflow.js';
import { APPROVAL_THRESHOLD, BLOCK_EXPIRES_MINUTES, LAB_ADDRESS } from '../../app/workflow/constants.js';
import type { N8nWorkflow } from './checks.js';
import { type ApiAnswer, type ApiCall, type Script, SIM_RESUME_URL, simulate } from './n8n-sim.js';

export const NOW = '2026-11-23T04:00:00.000Z';
const IP = LAB_ADDRESS;
export const ALERT = {
  event_id: 'evt-1',
  event_type: 'suspicious_login',
  user: 'lab-admin',
  source_ip: IP,
  failed_attempts: 7,
  successful_login: true,
  confidence: 92,
  environment: 'training',
};
const ENTRY = {
  ip: IP,
  event_id: 'evt-1',
  expires_minutes: BLOCK_EXPIRES_MINUTES,
  created_at: NOW,
  expires_at: '2026-11-23T04:10:00.000Z',
};
const OTHER_ENTRY = { ...ENTRY, event_id: 'evt-other' };

type Answer = ApiAnswer | ((call: ApiCall) => ApiAnswer);
/** Answers by `METHOD /path`; a list is answered in turn, its last answer repeated. */
export type Answers = Record<string, Answer | Answer[]>;

const HAPPY: Answers = {
  'GET /identity/lab-admin': { status: 200, body: { user: 'lab-admin', role: 'admin', critical: true } },
  'GET /cases/evt-1': { status: 404, body: { error: { code: 'case_not_found', message: 'no case' } } },
  'POST /notify': (call) => ({ status: 202, body: { id: 'ntf-1', ...(call.body as object) } }),
  'POST /blocklist': { status: 201, body: ENTRY },
  [`GET /blocklist/${IP}`]: { status: 200, body: { blocked: true, entry: ENTRY } },
  'POST /cases': (call) => ({ status: 201, body: { ...(call.body as object), revision: 1 } }),
  'GET /health': { status: 200, body: { status: 'ok', case_mode: 'healthy' } },
  [`DELETE /blocklist/${IP}`]: { status: 200, body: { removed: ENTRY } },
};

const APPROVE = { body: { decision: 'approve', approver: 'trainee-1' } };

export interface Scenario {
  name: string;
  workflow: 'response' | 'rollback';
  payload: unknown;
  answers?: Answers;
  approval?: Script['approval'];
  /** The `result` of the last case write, `rolled_back`, or `no case` when none was written. */
  expect: string;
}

const blockedCase = { status: 200, body: { event_id: 'evt-1', source_ip: IP, final_action: 'blocked' } };
const openCase = { status: 200, body: { event_id: 'evt-1', source_ip: IP, final_action: 'none' } };
const unhealthy = { status: 200, body: { status: 'degraded', case_mode: 'fail_next_write' } };
const failed = { status: 503, body: { error: { code: 'case_connector_failed', message: 'down' } } };

export const SCENARIOS: Scenario[] = [
  // step 1
  { name: 'valid alert, approved', workflow: 'response', payload: ALERT, expect: 'blocked' },
  ...(
    [
      ['source_ip missing', { ...ALERT, source_ip: undefined }],
      ['not an object', [ALERT]],
      ['null body', null],
      ['whitespace-only user', { ...ALERT, user: '   ' }],
      ['whitespace-only event_id', { ...ALERT, event_id: ' ' }],
      ['event_id of 129 characters', { ...ALERT, event_id: 'e'.repeat(129) }],
      ['empty strings', { ...ALERT, event_type: '', environment: '' }],
      ['wrong types', { ...ALERT, confidence: '92', successful_login: 'yes', environment: 'production' }],
      ['confidence 92.5 and 101', { ...ALERT, confidence: 92.5 }],
      ['confidence 101', { ...ALERT, confidence: 101 }],
      ['IPv4 with a leading zero', { ...ALERT, source_ip: '203.0.113.066' }],
      ['IPv6 with a zone', { ...ALERT, source_ip: 'fe80::1%eth0' }],
      ['IPv6 with too many groups', { ...ALERT, source_ip: '1:2:3:4:5:6:7:8:9' }],
    ] as const
  ).map(([name, payload]) => ({
    name: `invalid: ${name}`,
    workflow: 'response' as const,
    payload,
    expect: 'no case',
  })),
  {
    name: 'event_id of 128 characters, IPv6 with an IPv4 tail',
    workflow: 'response',
    payload: { ...ALERT, event_id: 'e'.repeat(128), source_ip: '::ffff:203.0.113.66', confidence: 12 },
    answers: {
      [`GET /cases/${'e'.repeat(128)}`]: { status: 404, body: {} },
    },
    expect: 'below_threshold',
  },
  {
    name: 'failed_attempts not a count is kept as null',
    workflow: 'response',
    payload: { ...ALERT, failed_attempts: -1, confidence: 0 },
    expect: 'below_threshold',
  },
  // step 2
  {
    name: 'identity not found',
    workflow: 'response',
    payload: ALERT,
    answers: { 'GET /identity/lab-admin': { status: 404, body: { error: { code: 'identity_not_found' } } } },
    expect: 'no case',
  },
  {
    name: 'identity mismatch',
    workflow: 'response',
    payload: ALERT,
    answers: { 'GET /identity/lab-admin': { status: 200, body: { user: 'someone-else' } } },
    expect: 'no case',
  },
  {
    name: 'identity answers 500',
    workflow: 'response',
    payload: ALERT,
    answers: { 'GET /identity/lab-admin': { status: 500, body: { error: { code: 'internal_error' } } } },
    expect: 'no case',
  },
  // step 3-4
  {
    name: 'just below the threshold',
    workflow: 'response',
    payload: { ...ALERT, confidence: APPROVAL_THRESHOLD - 1 },
    expect: 'below_threshold',
  },
  {
    name: 'at the threshold',
    workflow: 'response',
    payload: { ...ALERT, confidence: APPROVAL_THRESHOLD },
    expect: 'blocked',
  },
  {
    name: 'case lookup answers 500',
    workflow: 'response',
    payload: ALERT,
    answers: { 'GET /cases/evt-1': { status: 500, body: null } },
    expect: 'no case',
  },
  {
    name: 'duplicate: the case says blocked',
    workflow: 'response',
    payload: ALERT,
    answers: { 'GET /cases/evt-1': blockedCase },
    expect: 'duplicate_delivery',
  },
  {
    name: 'duplicate below the threshold is below the threshold',
    workflow: 'response',
    payload: { ...ALERT, confidence: 40 },
    answers: { 'GET /cases/evt-1': blockedCase },
    expect: 'below_threshold',
  },
  {
    name: 'duplicate: the blocklist shows this event behind an open case',
    workflow: 'response',
    payload: ALERT,
    answers: { 'GET /cases/evt-1': openCase },
    expect: 'duplicate_delivery',
  },
  {
    name: 'open case, the address blocked for another event: ask',
    workflow: 'response',
    payload: ALERT,
    answers: {
      'GET /cases/evt-1': openCase,
      [`GET /blocklist/${IP}`]: [
        { status: 200, body: { blocked: true, entry: OTHER_ENTRY } },
        { status: 200, body: { blocked: true, entry: ENTRY } },
      ],
    },
    expect: 'blocked',
  },
  {
    name: 'open case, not blocked: ask, reject',
    workflow: 'response',
    payload: ALERT,
    answers: {
      'GET /cases/evt-1': openCase,
      [`GET /blocklist/${IP}`]: { status: 200, body: { blocked: false } },
    },
    approval: { body: { decision: 'reject', approver: 'trainee-1' } },
    expect: 'approval_rejected',
  },
  {
    name: 'open case, blocklist lookup answers 500',
    workflow: 'response',
    payload: ALERT,
    answers: { 'GET /cases/evt-1': openCase, [`GET /blocklist/${IP}`]: { status: 500, body: null } },
    expect: 'no case',
  },
  // step 5
  {
    name: 'rejected',
    workflow: 'response',
    payload: ALERT,
    approval: { body: { decision: 'reject', approver: ' trainee-2 ' } },
    expect: 'approval_rejected',
  },
  {
    name: 'approve without an approver',
    workflow: 'response',
    payload: ALERT,
    approval: { body: { decision: 'approve', approver: '  ' } },
    expect: 'approval_rejected',
  },
  {
    name: 'approve with a non-object answer',
    workflow: 'response',
    payload: ALERT,
    approval: { body: 'approve' },
    expect: 'approval_rejected',
  },
  {
    name: 'timed out',
    workflow: 'response',
    payload: ALERT,
    approval: 'timeout',
    expect: 'approval_timed_out',
  },
  {
    name: 'approval request refused',
    workflow: 'response',
    payload: ALERT,
    answers: { 'POST /notify': { status: 422, body: { error: { code: 'validation_failed' } } } },
    expect: 'no case',
  },
  // step 6
  {
    name: 'approved, trimmed approver, already blocked by this event (409)',
    workflow: 'response',
    payload: ALERT,
    approval: { body: { decision: 'approve', approver: '  trainee-3 ' } },
    answers: {
      'POST /blocklist': { status: 409, body: { error: { code: 'already_blocked' }, entry: ENTRY } },
    },
    expect: 'blocked',
  },
  {
    name: 'blocked for another event (409)',
    workflow: 'response',
    payload: ALERT,
    answers: {
      'POST /blocklist': { status: 409, body: { error: { code: 'already_blocked' }, entry: OTHER_ENTRY } },
    },
    expect: 'no case',
  },
  {
    name: 'block refused (422)',
    workflow: 'response',
    payload: ALERT,
    answers: { 'POST /blocklist': { status: 422, body: { error: { code: 'validation_failed' } } } },
    expect: 'no case',
  },
  {
    name: 'verification shows another entry',
    workflow: 'response',
    payload: ALERT,
    answers: { [`GET /blocklist/${IP}`]: { status: 200, body: { blocked: true, entry: OTHER_ENTRY } } },
    expect: 'no case',
  },
  {
    name: 'verification shows nothing',
    workflow: 'response',
    payload: ALERT,
    answers: { [`GET /blocklist/${IP}`]: { status: 200, body: { blocked: false } } },
    expect: 'no case',
  },
  // step 7
  {
    name: 'connector failure, recovers on the third poll',
    workflow: 'response',
    payload: ALERT,
    answers: {
      'POST /cases': [failed, HAPPY['POST /cases'] as Answer],
      'GET /health': [unhealthy, unhealthy, HAPPY['GET /health'] as Answer],
    },
    expect: 'blocked',
  },
  {
    name: 'connector failure below the threshold',
    workflow: 'response',
    payload: { ...ALERT, confidence: 5 },
    answers: { 'POST /cases': [failed, HAPPY['POST /cases'] as Answer] },
    expect: 'below_threshold',
  },
  {
    name: 'connector never recovers (30 polls)',
    workflow: 'response',
    payload: ALERT,
    answers: { 'POST /cases': failed, 'GET /health': unhealthy },
    expect: 'blocked',
  },
  {
    name: 'the retried write fails too',
    workflow: 'response',
    payload: ALERT,
    answers: { 'POST /cases': failed },
    expect: 'blocked',
  },
  {
    name: 'case write refused (422)',
    workflow: 'response',
    payload: ALERT,
    answers: { 'POST /cases': { status: 422, body: { error: { code: 'validation_failed' } } } },
    expect: 'blocked',
  },
  // rollback
  {
    name: 'rollback',
    workflow: 'rollback',
    payload: { event_id: 'evt-1' },
    answers: rollbackCase(),
    expect: 'rolled_back',
  },
  {
    name: 'rollback, the entry already gone (404 not_blocked)',
    workflow: 'rollback',
    payload: { event_id: 'evt-1' },
    answers: {
      ...rollbackCase(),
      [`DELETE /blocklist/${IP}`]: { status: 404, body: { error: { code: 'not_blocked' } } },
    },
    expect: 'rolled_back',
  },
  ...(
    [
      ['no event_id', {}],
      ['not an object', 'evt-1'],
      ['whitespace-only event_id', { event_id: '  ' }],
      ['event_id of 129 characters', { event_id: 'e'.repeat(129) }],
    ] as const
  ).map(([name, payload]) => ({
    name: `rollback refused: ${name}`,
    workflow: 'rollback' as const,
    payload,
    answers: rollbackCase(),
    expect: 'no case',
  })),
  {
    name: 'rollback of an unknown case',
    workflow: 'rollback',
    payload: { event_id: 'evt-1' },
    expect: 'no case',
  },
  {
    name: 'rollback of a case without source_ip',
    workflow: 'rollback',
    payload: { event_id: 'evt-1' },
    answers: { 'GET /cases/evt-1': { status: 200, body: { event_id: 'evt-1' } } },
    expect: 'no case',
  },
  {
    name: 'rollback, DELETE answers 404 for another reason',
    workflow: 'rollback',
    payload: { event_id: 'evt-1' },
    answers: {
      ...rollbackCase(),
      [`DELETE /blocklist/${IP}`]: { status: 404, body: { error: { code: 'route_not_found' } } },
    },
    expect: 'no case',
  },
  {
    name: 'rollback, still blocked after the DELETE',
    workflow: 'rollback',
    payload: { event_id: 'evt-1' },
    answers: rollbackCase({ blocked: true, entry: ENTRY }),
    expect: 'no case',
  },
];

function rollbackCase(lookup: unknown = { blocked: false }): Answers {
  return {
    'GET /cases/evt-1': blockedCase,
    [`GET /blocklist/${IP}`]: { status: 200, body: lookup },
  };
}

/** A fresh scripted API for one run; `unscripted` collects calls the scenario has no answer for. */
export function scriptOf(s: Scenario): Script & { unscripted: string[] } {
  const answers: Answers = { ...HAPPY, ...s.answers };
  const turns = new Map<string, number>();
  const unscripted: string[] = [];
  return {
    unscripted,
    approval: s.approval ?? APPROVE,
    api(call) {
      const key = `${call.method} ${call.path}`;
      const entry = answers[key];
      if (entry === undefined) {
        unscripted.push(key);
        return { status: 599, body: null };
      }
      const list = Array.isArray(entry) ? entry : [entry];
      const turn = turns.get(key) ?? 0;
      turns.set(key, turn + 1);
      const answer = list[Math.min(turn, list.length - 1)] as Answer;
      return typeof answer === 'function' ? answer(call) : answer;
    },
  };
}

export interface Observed {
  calls: ApiCall[];
  ok: boolean;
  unscripted: string[];
}

/** The TypeScript reference (or a variant) on the scripted API, its clock fixed at NOW. */
export async function runReference(
  s: Scenario,
  nodes: { response?: ResponseNodes; rollback?: RollbackNodes } = {},
): Promise<Observed> {
  const script = scriptOf(s);
  const calls: ApiCall[] = [];
  const ctx: RunContext = {
    api: {
      describe: 'scripted',
      async request(method, path, body) {
        const call: ApiCall =
          body === undefined ? { method, path } : { method, path, body: JSON.parse(JSON.stringify(body)) };
        calls.push(call);
        return script.api(call);
      },
    },
    openApprovalWait: () => ({
      resumeUrl: SIM_RESUME_URL,
      outcome: Promise.resolve(
        script.approval === 'timeout'
          ? { kind: 'timed_out' }
          : { kind: 'resumed', body: script.approval.body },
      ),
      cancel() {},
    }),
    settings: { ...DEFAULT_SETTINGS, healthPollIntervalMs: 0 },
    signal: new AbortController().signal,
    triggeredAt: new Date(NOW),
    now: () => new Date(NOW),
    trace: () => {},
  };
  let ok = true;
  try {
    if (s.workflow === 'response')
      await runSuspiciousLogin(s.payload, ctx, nodes.response ?? REFERENCE_NODES);
    else await runRollback(s.payload, ctx, nodes.rollback ?? ROLLBACK_NODES);
  } catch {
    ok = false;
  }
  return { calls, ok, unscripted: script.unscripted };
}

/** The generated n8n workflow in the simulator, on the same script and clock. */
export function runN8n(s: Scenario, wf: N8nWorkflow): Observed & { path: string[]; error: string | null } {
  const script = scriptOf(s);
  const run = simulate(wf, s.payload, script, { now: NOW });
  return {
    calls: run.calls,
    ok: run.result === 'success',
    unscripted: script.unscripted,
    path: run.path,
    error: run.result === 'success' ? null : run.result.error,
  };
}

/** What the scenario ended with: the last case write's result, `rolled_back`, or `no case`. */
export function recorded(o: Observed): string {
  const writes = o.calls.filter((c) => c.method === 'POST' && c.path === '/cases');
  const last = writes.at(-1)?.body as { result?: string; final_action?: string } | undefined;
  if (last === undefined) return 'no case';
  return last.final_action === 'rolled_back' ? 'rolled_back' : String(last.result);
}

/** JSON with sorted keys: the mock API does not care in which order a body's fields come. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The scenarios on which the two differ (requests or success), each with the first difference. */
export async function mismatches(
  response: N8nWorkflow,
  rollback: N8nWorkflow,
  nodes: { response?: ResponseNodes; rollback?: RollbackNodes } = {},
  scenarios: Scenario[] = SCENARIOS,
): Promise<string[]> {
  const out: string[] = [];
  for (const s of scenarios) {
    const ts = await runReference(s, nodes);
    const n8n = runN8n(s, s.workflow === 'response' ? response : rollback);
    const a = canonical(ts.calls);
    const b = canonical(n8n.calls);
    if (a !== b || ts.ok !== n8n.ok) {
      const i = ts.calls.findIndex((c, k) => canonical(c) !== canonical(n8n.calls[k]));
      out.push(
        `${s.name}: ${ts.ok === n8n.ok ? '' : `reference ${ts.ok ? 'succeeds' : 'fails'}, n8n ${n8n.ok ? 'succeeds' : 'fails'}; `}` +
          `request ${i === -1 ? ts.calls.length : i}: reference ${JSON.stringify(ts.calls[i === -1 ? ts.calls.length : i])} ` +
          `n8n ${JSON.stringify(n8n.calls[i === -1 ? ts.calls.length : i])}`,
      );
    }
  }
  return out;
}
