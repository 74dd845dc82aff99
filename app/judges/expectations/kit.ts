/** What every expectation is made of: the evidence it reads, its outcome, and the questions it asks of the journal and the cases. */

import type { ExpectationStatus } from '../../check-report/report.js';
import type { Marks } from '../../driver/scenario-driver.js';
import { resumeUrlIn } from '../../judging/approval-request.js';
import * as judging from '../../judging/questions.js';
import { caseWrites, type Facts } from '../../judging/questions.js';
import type { JournalEntryReading, StateReading } from '../../mock-api-client/readings.js';
import type { ExecutionFinding } from '../../n8n/executions.js';
import { checkWords } from '../../stages/briefs.js';
import type { StageName } from '../../stages/stages.js';
import { APPROVAL_THRESHOLD } from '../../workflow/constants.js';
import { dig, mentions, someKey } from '../evidence.js';
import type { Mapping } from '../mapping.js';

export type { Marks } from '../../driver/scenario-driver.js';
export {
  blockPath,
  blockPosts,
  casePath,
  caseWrites,
  type Facts,
  identityPath,
  ok,
  requests,
  show,
  touching,
} from '../../judging/questions.js';
export type { ExecutionFinding } from '../../n8n/executions.js';
export { MAPPED_FIELDS } from '../../stages/briefs.js';

/** The checker's words (app/stages/briefs.ts, shared with the console): each expectation's text. */
export const WORDS = checkWords(APPROVAL_THRESHOLD);

export interface Evidence {
  state: StateReading;
  facts: Facts;
  marks: Marks;
  mapping: Mapping;
  /** The lab user's identity as GET /identity answered it before the check (to find it in a case). */
  identity: Record<string, unknown> | null;
  /** Undefined while the run is still being watched; set for the final judgement. */
  execution: ExecutionFinding | undefined;
  /** The trigger paths the checker posts to, for the hints. */
  webhookPath: string;
  rollbackPath: string;
}

export interface Outcome {
  status: ExpectationStatus;
  hint?: string;
  /** On a FAIL, what was wanted and what came (a {@link Gap}); the hint says what to do about it. */
  detail?: string;
}

/** A FAIL's detail: `<field or request>: want <wanted>, got <what came>`, several joined by `; `. */
export type Gap = `${string}: want ${string}, got ${string}`;

/** The one place the want/got line is worded: `POST /blocklist: want 1 request, got 0`. */
export const gap = (subject: string, want: string | number, got: string | number): Gap =>
  `${subject}: want ${want}, got ${got}`;

/** Several gaps of one FAIL on its one line, `; ` between them. */
export const gaps = (first: Gap, ...rest: readonly Gap[]): Gap =>
  rest.reduce<Gap>((line, next) => `${line}; ${next}`, first);

/** `1 request`, `0 requests`: a wanted count of requests. */
export const requestCount = (n: number) => `${n} request${n === 1 ? '' : 's'}`;

/** What came, counted: `0`, or `2 (POST /blocklist (201), POST /blocklist (409))`. */
export const counted = (entries: readonly JournalEntryReading[]) =>
  entries.length === 0 ? '0' : `${entries.length} (${entries.map(judging.show).join(', ')})`;

/** A case value as a want/got line shows it: a plain word bare (`blocked`), anything else as JSON. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const plain = typeof value === 'string' && /^[\w.:/@-]+$/.test(value);
  // A string that would read as a number, a boolean or null keeps its quotes: `want 10, got "10"`.
  return plain && !/^(true|false|null|-?[\d.]+)$/.test(value) ? value : JSON.stringify(value);
}

export interface Expectation {
  stage: StageName;
  text: string;
  judge(evidence: Evidence): Outcome;
}

export interface Scenario {
  id: string;
  /** What is sent, as the output names it: "alert without source_ip". */
  stimulus: string;
  alert(facts: Facts): Record<string, unknown>;
  /** The user of the alert: the lab's, or one the identity system does not know. */
  user: 'lab' | 'unknown';
  setup?: 'fail_next_write';
  approver: 'approve' | 'reject' | 'silent';
  /** A second stimulus once the first run has finished: the same alert again, or the rollback trigger. */
  followUp?: 'deliver_again' | 'rollback';
  expectations: Expectation[];
}

export const pass = (): Outcome => ({ status: 'pass' });

/** A FAIL: what to do (the hint) and what was wanted against what came (the detail, never left out). */
export const fail = (hint: string, detail: Gap): Outcome => ({ status: 'fail', hint, detail });

export const unjudged = (hint: string): Outcome => ({ status: 'unjudged', hint });

export const approvalRequests = (state: StateReading) =>
  state.notifications.filter((n) => resumeUrlIn(n) !== undefined);

export const casesOf = (e: Evidence) => judging.casesOf(e.state, e.facts);

/** The single case of the event, when it is the only case. */
export const theCase = (e: Evidence) => judging.theCase(e.state, e.facts);

/** The cases against the one case of the event: `cases: want 1 (event evt-1), got 2 (events evt-1, evt-2)`. */
export function casesGap(e: Evidence): Gap {
  const events = e.state.cases.map((c) => c.event_id);
  const got =
    events.length === 0
      ? '0'
      : `${events.length} (event${events.length === 1 ? '' : 's'} ${events.join(', ')})`;
  return gap('cases', `1 (event ${e.facts.eventId})`, got);
}

export function oneCase(e: Evidence, when: string): Outcome {
  const own = casesOf(e);
  if (own.length === 1 && e.state.cases.length === 1) return pass();
  if (e.state.cases.length === 0) {
    return fail(
      `${when} no case was written: connect Record (POST /cases with the alert's event_id) at the end of this branch`,
      casesGap(e),
    );
  }
  const others = e.state.cases.filter((c) => c.event_id !== e.facts.eventId).map((c) => c.event_id);
  return fail(
    `${when} there are ${e.state.cases.length} cases (${others.length > 0 ? `other event_id ${others.join(', ')}` : 'of this event'}): ` +
      "the alert's event_id is the case key; write every case of this alert with it, unchanged",
    casesGap(e),
  );
}

/** A case field the seed leaves unnamed: judged through the mapping; absent under that name = unjudged. */
export function mappedField(
  e: Evidence,
  key: 'final_action' | 'verification' | 'recovery_time',
  want: (value: unknown) => boolean,
  wanted: unknown,
  hint: string,
): Outcome {
  const record = theCase(e);
  if (record === undefined) {
    return fail('write exactly one case for the event first (see the line above)', casesGap(e));
  }
  const path = e.mapping.case[key];
  const value = dig(record, path);
  if (value === undefined) {
    return unjudged(
      `the case has no field ${path}; the exercise leaves this name open: give yours in a mapping file ` +
        `(--mapping, "case": {"${key}": "<your.path>"}; docs/trainee-guide.md) to have it judged`,
    );
  }
  return want(value)
    ? pass()
    : fail(hint, gap(`case ${e.facts.eventId} ${path}`, shown(wanted), shown(value)));
}

/** The values held under keys matching the pattern, at any depth of a case. */
export function valuesAt(record: unknown, pattern: RegExp): unknown[] {
  const found: unknown[] = [];
  someKey(record, pattern, (v) => {
    found.push(v);
    return false;
  });
  return found;
}

/** The role the identity system answered for the lab user: the case must hold it (see holdsIdentity). */
const answeredRole = (e: Evidence) => (typeof e.identity?.role === 'string' ? e.identity.role : undefined);

export function holdsIdentity(e: Evidence): boolean {
  const record = theCase(e);
  if (record === undefined) return false;
  const role = answeredRole(e);
  // The role only the identity system knows proves the answer itself was kept, not just the alert's user.
  return role !== undefined ? someKey(record, /^role$/, (v) => v === role) : mentions(record, e.facts.user);
}

export function describeIdentity(e: Evidence): string {
  const role = answeredRole(e);
  return role !== undefined ? `role ${role}` : `user ${e.facts.user}`;
}

/** Why holdsIdentity said no: `case evt-1 role: want analyst (GET /identity/lab-admin's answer), got none`. */
export function identityGap(e: Evidence): Gap {
  const record = theCase(e);
  if (record === undefined) return casesGap(e);
  const asked = `GET ${judging.identityPath(e.facts.user)}'s answer`;
  const role = answeredRole(e);
  if (role === undefined)
    return gap(`case ${e.facts.eventId}`, `user ${e.facts.user} (${asked})`, 'no mention');
  const held = valuesAt(record, /^role$/);
  return gap(
    `case ${e.facts.eventId} role`,
    `${role} (${asked})`,
    held.length === 0 ? 'no field role' : held.map(shown).join(', '),
  );
}

/** The first failed case write of a connector-failure scenario. */
export const failedWrite = (state: StateReading) => caseWrites(state).find((j) => j.status >= 500);
