/** What every expectation is made of: the evidence it reads, its outcome, and the questions it asks of the journal and the cases. */

import type { ExpectationStatus } from '../../check-report/report.js';
import type { Marks } from '../../driver/scenario-driver.js';
import { resumeUrlIn } from '../../judging/approval-request.js';
import * as judging from '../../judging/questions.js';
import { caseWrites, type Facts } from '../../judging/questions.js';
import type { StateReading } from '../../mock-api-client/readings.js';
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
  detail?: string;
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

export const fail = (hint: string, detail?: string): Outcome => ({
  status: 'fail',
  hint,
  ...(detail === undefined ? {} : { detail }),
});

export const unjudged = (hint: string): Outcome => ({ status: 'unjudged', hint });

export const approvalRequests = (state: StateReading) =>
  state.notifications.filter((n) => resumeUrlIn(n) !== undefined);

export const casesOf = (e: Evidence) => judging.casesOf(e.state, e.facts);

/** The single case of the event, when it is the only case. */
export const theCase = (e: Evidence) => judging.theCase(e.state, e.facts);

export function oneCase(e: Evidence, when: string): Outcome {
  const own = casesOf(e);
  if (own.length === 1 && e.state.cases.length === 1) return pass();
  if (e.state.cases.length === 0) {
    return fail(
      `${when} no case was written: connect Record (POST /cases with the alert's event_id) at the end of this branch`,
      'no case',
    );
  }
  const others = e.state.cases.filter((c) => c.event_id !== e.facts.eventId).map((c) => c.event_id);
  return fail(
    `${when} there are ${e.state.cases.length} cases (${others.length > 0 ? `other event_id ${others.join(', ')}` : 'of this event'}): ` +
      "the alert's event_id is the case key; write every case of this alert with it, unchanged",
    `${own.length} of the event, ${e.state.cases.length} in all`,
  );
}

/** A case field the seed leaves unnamed: judged through the mapping; absent under that name = unjudged. */
export function mappedField(
  e: Evidence,
  key: 'final_action' | 'verification' | 'recovery_time',
  want: (value: unknown) => boolean,
  wantText: string,
  hint: string,
): Outcome {
  const record = theCase(e);
  if (record === undefined) return fail('write exactly one case for the event first (see the line above)');
  const path = e.mapping.case[key];
  const value = dig(record, path);
  if (value === undefined) {
    return unjudged(
      `the case has no field ${path}; the exercise leaves this name open: give yours in a mapping file ` +
        `(--mapping, "case": {"${key}": "<your.path>"}; docs/trainee-guide.md) to have it judged`,
    );
  }
  return want(value) ? pass() : fail(hint, `${path} is ${JSON.stringify(value)}, wanted ${wantText}`);
}

export function holdsIdentity(e: Evidence): boolean {
  const record = theCase(e);
  if (record === undefined) return false;
  const role = e.identity?.role;
  // The role only the identity system knows proves the answer itself was kept, not just the alert's user.
  return typeof role === 'string'
    ? someKey(record, /^role$/, (v) => v === role)
    : mentions(record, e.facts.user);
}

export function describeIdentity(e: Evidence): string {
  return typeof e.identity?.role === 'string' ? `role ${e.identity.role}` : `user ${e.facts.user}`;
}

/** The first failed case write of a connector-failure scenario. */
export const failedWrite = (state: StateReading) => caseWrites(state).find((j) => j.status >= 500);
