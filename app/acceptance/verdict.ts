/**
 * The verdicts of the acceptance matrix, from destination state alone (GET /state: cases, blocklist,
 * history, notifications, journal), never from a workflow's run status. One module for both targets: the
 * reference workflow and n8n pass or fail by the same checks.
 */

import { dig } from '../judging/dig.js';
import {
  blocklistWrites,
  casesOf,
  entriesOf,
  type Facts,
  notificationsOf,
  blockPosts as postsToBlocklist,
  requests,
  theCase,
  touching,
} from '../judging/questions.js';
import type { CaseReading, JournalEntryReading, StateReading } from '../mock-api-client/readings.js';
import { BLOCK_EXPIRES_MINUTES } from '../workflow/constants.js';

export const CASE_NAMES = [
  'positive',
  'invalid_input',
  'low_confidence',
  'connector_failure',
  'duplicate_delivery',
  'rollback',
  'approval_rejected',
  'approval_timed_out',
] as const;
export type CaseName = (typeof CASE_NAMES)[number];

export interface Check {
  check: string;
  pass: boolean;
  /** What was seen, when it was not what the check wants. */
  detail?: string;
}

export interface Verdict {
  pass: boolean;
  checks: Check[];
  /** One line of what the destination systems show, for the table. */
  observed: string;
}

export const EXPECTATIONS: Record<CaseName, string> = {
  positive: `approval asked; 1 case blocked; 1 block of ${BLOCK_EXPIRES_MINUTES} min`,
  invalid_input: 'validation error noted; no lookup, case or block',
  low_confidence: 'case with identity; no approval, no block',
  connector_failure: '1 block; case write 503 then 2xx; owner told',
  duplicate_delivery: 'case updated, rev>=2; still 1 case, 1 block',
  rollback: 'entry removed (unblocked); recovery time kept',
  approval_rejected: 'case without action, approver kept; no block',
  approval_timed_out: 'case approval_timed_out; no block',
};

export function judge(name: CaseName, state: StateReading, facts: Facts): Verdict {
  const checks = CHECKS[name](new View(state, facts), facts);
  const pass = checks.every((c) => c.pass);
  const failed = checks.find((c) => !c.pass);
  const summary = summarize(state, facts);
  return {
    pass,
    checks,
    observed: failed === undefined ? summary : `${summary} | FAILED: ${failed.check}${detailOf(failed)}`,
  };
}

function detailOf(check: Check): string {
  return check.detail === undefined ? '' : ` (${check.detail})`;
}

/** The kernel's questions (app/judging/questions.ts) about one state and the facts of its case. */
class View {
  constructor(
    readonly state: StateReading,
    readonly facts: Facts,
  ) {}

  notifications(channel: string) {
    return notificationsOf(this.state, this.facts, channel);
  }

  casesOfEvent(): CaseReading[] {
    return casesOf(this.state, this.facts);
  }

  theCase(): CaseReading | undefined {
    return theCase(this.state, this.facts);
  }

  activeEntries() {
    return entriesOf(this.state, this.facts);
  }

  requests(method: string, match: (path: string) => boolean): JournalEntryReading[] {
    return requests(this.state, method, match);
  }

  touching(resource: string): JournalEntryReading[] {
    return touching(this.state, resource);
  }

  blocklistWrites(): JournalEntryReading[] {
    return blocklistWrites(this.state);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Check builders: each returns one named check with what was seen when it fails.

function count(what: string, items: readonly unknown[], expected: number): Check {
  return items.length === expected
    ? { check: `${expected} ${what}`, pass: true }
    : { check: `${expected} ${what}`, pass: false, detail: `found ${items.length}` };
}

function field(
  record: CaseReading | undefined,
  path: string,
  want: string,
  ok: (value: unknown) => boolean,
): Check {
  const check = `case ${path} ${want}`;
  if (record === undefined) return { check, pass: false, detail: 'no single case of the event' };
  const value = dig(record, path);
  return ok(value) ? { check, pass: true } : { check, pass: false, detail: `found ${JSON.stringify(value)}` };
}

function is(expected: unknown) {
  return (value: unknown) => value === expected;
}

function oneCase(v: View): Check {
  return v.theCase() === undefined
    ? {
        check: 'exactly 1 case, the event’s',
        pass: false,
        detail: `${v.casesOfEvent().length} of the event, ${v.state.cases.length} in all`,
      }
    : { check: 'exactly 1 case, the event’s', pass: true };
}

function oneActiveEntry(v: View): Check {
  const entries = v.activeEntries();
  const entry = entries[0];
  const check = `1 active entry for ${v.facts.sourceIp}, of the event, expires_minutes ${BLOCK_EXPIRES_MINUTES}`;
  if (entries.length !== 1 || v.state.blocklist.length !== 1 || entry === undefined) {
    return { check, pass: false, detail: `${v.state.blocklist.length} active entries` };
  }
  return entry.event_id === v.facts.eventId && entry.expires_minutes === BLOCK_EXPIRES_MINUTES
    ? { check, pass: true }
    : { check, pass: false, detail: `event ${entry.event_id}, ${entry.expires_minutes} min` };
}

function noActiveEntry(v: View): Check {
  return count('active blocklist entries', v.state.blocklist, 0);
}

function blockPosts(v: View, expected: number): Check {
  return count(
    'POST /blocklist in the journal',
    v.requests('POST', (p) => p === '/blocklist'),
    expected,
  );
}

function noContainment(v: View): Check {
  return count('blocklist writes (POST/DELETE) in the journal', v.blocklistWrites(), 0);
}

function identityInEvidence(v: View): Check {
  return field(v.theCase(), 'evidence.identity.user', `is ${v.facts.user}`, is(v.facts.user));
}

function blockedCase(v: View): Check[] {
  const c = v.theCase();
  return [
    field(c, 'final_action', 'is "blocked"', is('blocked')),
    field(c, 'approver', `is ${v.facts.approver}`, is(v.facts.approver)),
    field(c, 'verification.blocked', 'is true', is(true)),
    field(c, 'expiry.expires_minutes', `is ${BLOCK_EXPIRES_MINUTES}`, is(BLOCK_EXPIRES_MINUTES)),
  ];
}

// ---------------------------------------------------------------------------------------------------------
// The matrix (docs/workflow-protocol.md, "What the acceptance runner checks").

const CHECKS: Record<CaseName, (v: View, facts: Facts) => Check[]> = {
  positive: (v) => [
    count('approval notification', v.notifications('approval'), 1),
    oneCase(v),
    ...blockedCase(v),
    identityInEvidence(v),
    oneActiveEntry(v),
    blockPosts(v, 1),
  ],

  invalid_input: (v) => [
    count('validation notification', v.notifications('validation'), 1),
    validationNames(v, 'source_ip'),
    count('cases', v.state.cases, 0),
    noActiveEntry(v),
    count('blocklist history records', v.state.blocklist_history, 0),
    count('/identity requests in the journal', v.touching('/identity'), 0),
    count('/cases requests in the journal', v.touching('/cases'), 0),
    count('/blocklist requests in the journal', v.touching('/blocklist'), 0),
  ],

  low_confidence: (v) => [
    oneCase(v),
    field(v.theCase(), 'final_action', 'is "none"', is('none')),
    identityInEvidence(v),
    count('approval notifications', v.notifications('approval'), 0),
    noContainment(v),
    noActiveEntry(v),
  ],

  connector_failure: (v) => [
    lookupHealthy(v),
    blockPosts(v, 1),
    failedThenWritten(v),
    count('owner notification', v.notifications('owner'), 1),
    oneCase(v),
    ...blockedCase(v),
    resumedAfterOwnerTold(v),
    oneActiveEntry(v),
  ],

  duplicate_delivery: (v) => [
    oneCase(v),
    field(v.theCase(), 'revision', 'is >= 2', (value) => typeof value === 'number' && value >= 2),
    field(v.theCase(), 'result', 'is "duplicate_delivery"', is('duplicate_delivery')),
    field(v.theCase(), 'final_action', 'is still "blocked"', is('blocked')),
    oneActiveEntry(v),
    blockPosts(v, 1),
    count('approval notification', v.notifications('approval'), 1),
  ],

  rollback: (v, facts) => [
    noActiveEntry(v),
    unblockedInHistory(v),
    count(
      'DELETE of the exact entry in the journal',
      v.requests('DELETE', (p) => p === `/blocklist/${facts.sourceIp}`),
      1,
    ),
    oneCase(v),
    field(v.theCase(), 'rollback.status', 'is "completed"', is('completed')),
    field(
      v.theCase(),
      'rollback.recovery_seconds',
      'is a number >= 0',
      (value) => typeof value === 'number' && value >= 0,
    ),
  ],

  approval_rejected: (v) => [
    count('approval notification', v.notifications('approval'), 1),
    oneCase(v),
    field(v.theCase(), 'final_action', 'is "none"', is('none')),
    field(v.theCase(), 'result', 'is "approval_rejected"', is('approval_rejected')),
    field(v.theCase(), 'approver', `is ${v.facts.approver}`, is(v.facts.approver)),
    noContainment(v),
    noActiveEntry(v),
  ],

  approval_timed_out: (v) => [
    count('approval notification', v.notifications('approval'), 1),
    oneCase(v),
    field(v.theCase(), 'final_action', 'is "none"', is('none')),
    field(v.theCase(), 'result', 'is "approval_timed_out"', is('approval_timed_out')),
    noContainment(v),
    noActiveEntry(v),
  ],
};

/** The validation notification names the missing field (in `errors` or its message). */
function validationNames(v: View, fieldName: string): Check {
  const check = `validation error names ${fieldName}`;
  const notice = v.notifications('validation')[0];
  if (notice === undefined) return { check, pass: false, detail: 'no validation notification' };
  return JSON.stringify([dig(notice, 'errors'), dig(notice, 'message')]).includes(fieldName)
    ? { check, pass: true }
    : { check, pass: false, detail: `message ${JSON.stringify(dig(notice, 'message'))}` };
}

/** The seed: under fail_next_write the case lookup stays healthy (404 selects create). */
function lookupHealthy(v: View): Check {
  const lookups = v.requests('GET', (p) => p === `/cases/${encodeURIComponent(v.facts.eventId)}`);
  const check = 'case lookup answered 404 (healthy) before the write';
  return lookups.some((j) => j.status === 404)
    ? { check, pass: true }
    : { check, pass: false, detail: `lookups: ${lookups.map((j) => j.status).join(', ') || 'none'}` };
}

/** One failed case write (503), and a successful one after it. */
function failedThenWritten(v: View): Check {
  const writes = v.requests('POST', (p) => p === '/cases');
  const failed = writes.find((j) => j.status === 503);
  const later = failed && writes.find((j) => j.seq > failed.seq && j.status >= 200 && j.status < 300);
  const check = 'POST /cases 503, then a 2xx POST /cases';
  return failed !== undefined && later !== undefined
    ? { check, pass: true }
    : { check, pass: false, detail: `writes: ${writes.map((j) => j.status).join(', ') || 'none'}` };
}

/**
 * Record resumed after the owner was told: a POST /notify between the failed case write and the written
 * one. (The seed names no field of the case for the resume, and GET /health is not in the journal.)
 */
function resumedAfterOwnerTold(v: View): Check {
  const writes = v.requests('POST', (p) => p === '/cases');
  const failed = writes.find((j) => j.status === 503);
  const later = failed && writes.find((j) => j.seq > failed.seq && j.status >= 200 && j.status < 300);
  const notices = v.requests('POST', (p) => p === '/notify');
  const between = failed && later && notices.some((j) => j.seq > failed.seq && j.seq < later.seq);
  const check = 'the owner told between the failed case write and the written one';
  return between ? { check, pass: true } : { check, pass: false, detail: 'no POST /notify between them' };
}

function unblockedInHistory(v: View): Check {
  const records = v.state.blocklist_history.filter(
    (h) => h.event_id === v.facts.eventId && h.ip === v.facts.sourceIp,
  );
  const check = 'history record of the entry, removed_reason "unblocked"';
  return records.length === 1 && records[0]?.removed_reason === 'unblocked'
    ? { check, pass: true }
    : { check, pass: false, detail: records.map((h) => h.removed_reason).join(', ') || 'no record' };
}

// ---------------------------------------------------------------------------------------------------------

/** A compact picture of the destination state for the table: case, entries, blocks, notifications. */
export function summarize(state: StateReading, facts: Facts): string {
  const own = casesOf(state, facts);
  const parts: string[] = [];
  const first = own[0];
  if (first === undefined)
    parts.push(`no case${state.cases.length > 0 ? ` (${state.cases.length} other)` : ''}`);
  else {
    const approver = first.approver ? ` by ${first.approver}` : '';
    parts.push(
      `case ${first.final_action ?? '?'}/${first.result ?? '?'}${approver} r${first.revision ?? '?'}`,
    );
    if (own.length > 1) parts.push(`${own.length} cases!`);
  }
  parts.push(`entries ${state.blocklist.length}`);
  const posts = postsToBlocklist(state).length;
  parts.push(`POST /blocklist x${posts}`);
  const channels = new Map<string, number>();
  for (const n of state.notifications)
    channels.set(n.channel ?? '?', (channels.get(n.channel ?? '?') ?? 0) + 1);
  parts.push(
    channels.size === 0
      ? 'no notify'
      : `notify ${[...channels].map(([channel, n]) => (n === 1 ? channel : `${channel} x${n}`)).join(',')}`,
  );
  return parts.join('; ');
}
