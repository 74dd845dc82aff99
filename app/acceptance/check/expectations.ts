/**
 * What the checker expects, one builder per requirement of the seed, each with the hint a failure gives
 * in the trainee's terms. Every judgement reads the mock API's destination state (GET /state: cases,
 * notifications, blocklist, history, journal) and, for the Webhook stage only, n8n's execution data.
 * The stimuli that exercise them are in scenarios.ts.
 */

import { resumeUrlIn } from '../../lab/approval-request.js';
import type { JournalEntry, State } from '../api-schemas.js';
import { dig, mentions, someKey } from './evidence.js';
import type { Mapping } from './mapping.js';
import type { ExpectationStatus, StageName } from './report-schema.js';

/** The seven fields the Webhook maps (the seed's workflow rule 1); Validate requires each. */
export const MAPPED_FIELDS = [
  'event_id',
  'event_type',
  'user',
  'source_ip',
  'confidence',
  'environment',
  'successful_login',
] as const;

export interface Facts {
  eventId: string;
  user: string;
  sourceIp: string;
  /** A fresh name per scenario, so "the case names the approver" cannot pass by accident. */
  approver: string;
}

/** What the checker saw happen besides the final state. */
export interface Marks {
  /** The status the webhook answered (null: not reachable), and why it failed. */
  trigger: { status: number | null; error: string | null };
  /** The state at the moment the first approval request was seen, before anyone answered it. */
  atApprovalRequest: State | null;
  /** The status the resume URL answered to the checker's decision (null: not reachable). */
  resumeStatus: number | null;
  /** The first run of a two-delivery scenario finished (one block, a case written after it). */
  firstRunDone: boolean | null;
  /** The last journal seq before the second stimulus. */
  followUpSeq: number | null;
  followUpTrigger: { status: number | null; error: string | null } | null;
}

/** The Webhook stage's execution-data judgement (n8n public API), when the checker could make one. */
export type ExecutionFinding =
  | { kind: 'no-key' }
  | { kind: 'not-found'; detail: string }
  | { kind: 'error'; detail: string }
  | { kind: 'found'; executionId: string; missing: string[] };

export interface Evidence {
  state: State;
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

// ---------------------------------------------------------------------------------------------------------
// Outcomes and journal questions

export const pass = (): Outcome => ({ status: 'pass' });
export const fail = (hint: string, detail?: string): Outcome => ({
  status: 'fail',
  hint,
  ...(detail === undefined ? {} : { detail }),
});
export const unjudged = (hint: string): Outcome => ({ status: 'unjudged', hint });

export const show = (j: JournalEntry) => `${j.method} ${j.path} (${j.status})`;
export const ok = (j: JournalEntry) => j.status >= 200 && j.status < 300;

export function requests(
  state: State,
  method: string,
  path: string | ((path: string) => boolean),
): JournalEntry[] {
  const match = typeof path === 'string' ? (p: string) => p === path : path;
  return state.journal.filter((j) => j.method === method && match(j.path));
}

export function touching(state: State, resource: string): JournalEntry[] {
  return state.journal.filter((j) => j.path === resource || j.path.startsWith(`${resource}/`));
}

export const casePath = (f: Facts) => `/cases/${encodeURIComponent(f.eventId)}`;
export const identityPath = (user: string) => `/identity/${encodeURIComponent(user)}`;
export const blockPath = (f: Facts) => `/blocklist/${f.sourceIp}`;

export const approvalRequests = (state: State) =>
  state.notifications.filter((n) => resumeUrlIn(n) !== undefined);
export const blockPosts = (state: State) => requests(state, 'POST', '/blocklist');
export const caseWrites = (state: State) => requests(state, 'POST', '/cases');
export const casesOf = (e: Evidence) => e.state.cases.filter((c) => c.event_id === e.facts.eventId);

/** The single case of the event, when it is the only case. */
export function theCase(e: Evidence): Record<string, unknown> | undefined {
  const own = casesOf(e);
  return own.length === 1 && e.state.cases.length === 1 ? own[0] : undefined;
}

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
      `the case has no field ${path}; the seed leaves this name open: give yours in a mapping file ` +
        `(--mapping, "case": {"${key}": "<your.path>"}; docs/trainee-guide.md) to have it judged`,
    );
  }
  return want(value) ? pass() : fail(hint, `${path} is ${JSON.stringify(value)}, wanted ${wantText}`);
}

// ---------------------------------------------------------------------------------------------------------
// Expectations, one builder per requirement of the seed

/** The one expectation judged even when the alert never reached the workflow. */
export const webhookAccepts: Expectation = {
  stage: 'webhook',
  text: 'the webhook accepts the alert (POST answers 2xx)',
  judge: (e) => {
    const { status, error } = e.marks.trigger;
    if (status !== null && status >= 200 && status < 300) return pass();
    return fail(
      `POST /webhook/${e.webhookPath} ${status === null ? `could not be sent (${error})` : `answered ${status}`}: ` +
        'give the Webhook node HTTP method POST and this path (or tell the checker yours with --webhook-path), and publish the workflow',
      error ?? undefined,
    );
  },
};

export const sevenFields: Expectation = {
  stage: 'webhook',
  text: 'all seven mapped fields appear in the execution data',
  judge: (e) => {
    const found = e.execution;
    if (found === undefined) return unjudged('judged once the run has settled');
    switch (found.kind) {
      case 'no-key':
        return unjudged(
          'no n8n API key (N8N_API_KEY), so the execution data cannot be read: judged from the next stage ' +
            '(Validate needs all seven fields, so a field the Webhook loses fails there)',
        );
      case 'not-found':
      case 'error':
        return fail(
          'no execution of this alert was found through the n8n API: check that the workflow saves its executions (EXECUTIONS_DATA_SAVE_ON_SUCCESS=all) and is the one published at this path',
          found.detail,
        );
      case 'found':
        return found.missing.length === 0
          ? pass()
          : fail(
              `execution ${found.executionId} does not show ${found.missing.join(', ')} with the values sent: map all seven fields (${MAPPED_FIELDS.join(', ')}) from the webhook body`,
              `missing: ${found.missing.join(', ')}`,
            );
    }
  },
};

export function identityAsked(stage: StageName): Expectation {
  return {
    stage,
    text: 'a valid alert passes Validate and Enrich asks GET /identity/<user>',
    judge: (e) => {
      const path = identityPath(e.facts.user);
      if (requests(e.state, 'GET', path).length > 0) return pass();
      const asked = requests(e.state, 'GET', (p) => p.startsWith('/identity/'));
      if (asked.length > 0) {
        return fail(
          `the alert's user is ${e.facts.user}, but Enrich asked ${asked.map(show).join(', ')}: build the path from the alert's user field`,
        );
      }
      if (e.state.notifications.length > 0) {
        return fail(
          `a valid alert made no GET ${path} but a notification: Validate seems to reject valid alerts (environment "training", all seven fields present); check its conditions`,
          `${e.state.notifications.length} notification(s)`,
        );
      }
      return fail(
        `no GET ${path} after a valid alert: connect Enrich to Validate's success branch and ask GET {mock API}/identity/ + the alert's user`,
        'no /identity request',
      );
    },
  };
}

export const identityOfTheUserOnly: Expectation = {
  stage: 'enrich',
  text: 'Enrich asks for the alert’s user and no other',
  judge: (e) => {
    const wrong = requests(e.state, 'GET', (p) => p.startsWith('/identity/')).filter(
      (j) => j.path !== identityPath(e.facts.user),
    );
    if (wrong.length === 0 && requests(e.state, 'GET', identityPath(e.facts.user)).length > 0) return pass();
    if (wrong.length === 0) {
      return fail(
        `an alert for user ${e.facts.user} made no GET ${identityPath(e.facts.user)}: Enrich must ask for the alert's user`,
        'no /identity request',
      );
    }
    return fail(
      `an alert for user ${e.facts.user} called ${wrong.map(show).join(', ')}: Enrich must use the alert's user field, not a fixed name or another field`,
    );
  },
};

export const unknownIdentityStops: Expectation = {
  stage: 'enrich',
  text: 'an identity that does not belong to the user stops the run (no approval request, no block)',
  judge: (e) => {
    const approvals = approvalRequests(e.state).length;
    const blocks = blockPosts(e.state).length;
    if (approvals === 0 && blocks === 0) return pass();
    return fail(
      `an alert for ${e.facts.user}, whom the identity system does not know, still went on to ${approvals > 0 ? 'ask for approval' : 'POST /blocklist'}: ` +
        "after GET /identity, stop the run (and record why) unless it answered 200 with the alert's user",
      `${approvals} approval request(s), ${blocks} POST /blocklist`,
    );
  },
};

export function caseLookupAfterEnrich(): Expectation {
  return {
    stage: 'case-lookup',
    text: 'Case lookup asks GET /cases/<event_id> after Enrich',
    judge: (e) => {
      const path = casePath(e.facts);
      const lookups = requests(e.state, 'GET', path);
      const firstIdentity = requests(e.state, 'GET', (p) => p.startsWith('/identity/'))[0];
      if (lookups.length === 0) {
        const other = requests(e.state, 'GET', (p) => p.startsWith('/cases/'));
        return other.length > 0
          ? fail(
              `Case lookup asked ${other.map(show).join(', ')}, not GET ${path}: look the case up by the alert's event_id`,
            )
          : fail(
              `no GET ${path}: connect Case lookup after Enrich and ask GET {mock API}/cases/ + the alert's event_id (a 404 there is an answer, not an error: turn on "never error" / full response)`,
              'no case lookup',
            );
      }
      if (firstIdentity !== undefined && (lookups[0]?.seq ?? 0) < firstIdentity.seq) {
        return fail('Case lookup ran before Enrich: the seed’s order is Enrich, then Case lookup');
      }
      return pass();
    },
  };
}

export const noApprovalBelow80: Expectation = {
  stage: 'decide',
  text: 'below 80 no approval is requested',
  judge: (e) => {
    const approvals = approvalRequests(e.state);
    return approvals.length === 0
      ? pass()
      : fail(
          'confidence 79 asked for approval: Decide must compare confidence >= 80, and 79 is below',
          `${approvals.length} approval request(s)`,
        );
  },
};

export const noContainmentBelow80: Expectation = {
  stage: 'decide',
  text: 'below 80 no containment is requested (no POST or DELETE /blocklist)',
  judge: (e) => {
    const writes = touching(e.state, '/blocklist').filter((j) => j.method !== 'GET');
    return writes.length === 0
      ? pass()
      : fail(
          `confidence 79 still called ${writes.map(show).join(', ')}: Decide's below-80 branch must not reach Block`,
        );
  },
};

export const enrichmentRecordedBelow80: Expectation = {
  stage: 'decide',
  text: 'below 80 the enrichment is recorded (a case of the event holding the identity)',
  judge: (e) => {
    const outcome = oneCase(e, 'after confidence 79');
    if (outcome.status !== 'pass') return outcome;
    return holdsIdentity(e)
      ? pass()
      : fail(
          `the case does not hold the identity Enrich returned (${describeIdentity(e)}): put Enrich's answer into the case as evidence`,
        );
  },
};

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

export function approvalRequested(stage: StageName, when: string, hint: string): Expectation {
  return {
    stage,
    text: `${when} approval is requested (a notification carrying the resume URL)`,
    judge: (e) => {
      if (approvalRequests(e.state).length > 0) return pass();
      if (e.state.notifications.length > 0) {
        return fail(
          'a notification was sent but none carries the resume URL: put {{ $execution.resumeUrl }} into the approval request so the approver can answer',
          `${e.state.notifications.length} notification(s) without a resume URL`,
        );
      }
      return fail(hint, 'no approval request');
    },
  };
}

export const noBlockBeforeDecision: Expectation = {
  stage: 'approve',
  text: 'no block request before the approver answers',
  judge: (e) => {
    const at = e.marks.atApprovalRequest;
    if (at === null) return fail('no approval request was seen (see the line above)');
    const early = blockPosts(at);
    return early.length === 0
      ? pass()
      : fail(
          'POST /blocklist was sent before the approver answered: move Block after the Wait node, on its approved branch',
          early.map(show).join(', '),
        );
  },
};

export const resumeAccepted: Expectation = {
  stage: 'approve',
  text: 'the resume URL takes the approver’s decision',
  judge: (e) => {
    const status = e.marks.resumeStatus;
    if (status !== null && status >= 200 && status < 300) return pass();
    if (e.marks.atApprovalRequest === null) return fail('no approval request was seen (see the line above)');
    return fail(
      `the resume URL answered ${status ?? 'nothing'}: after the approval request, wait in a Wait node that resumes "On Webhook Call" (POST), and send this run's own {{ $execution.resumeUrl }}`,
    );
  },
};

export function noBlockAfter(stage: StageName, what: string, hint: string): Expectation {
  return {
    stage,
    text: `${what} takes the no-action branch: no block request`,
    judge: (e) => {
      const writes = touching(e.state, '/blocklist').filter((j) => j.method !== 'GET');
      return writes.length === 0 ? pass() : fail(hint, writes.map(show).join(', '));
    },
  };
}

export function recordedNoAction(stage: StageName, what: string): Expectation {
  return {
    stage,
    text: `${what} is recorded: a case of the event whose final action is none`,
    judge: (e) => {
      const one = oneCase(e, `${what}:`);
      if (one.status !== 'pass') {
        return what.includes('time')
          ? fail(
              `${one.hint} (give the Wait node a time limit, so a run nobody answers goes on to the no-action branch)`,
              one.detail,
            )
          : one;
      }
      const none = e.mapping.case.none;
      return mappedField(
        e,
        'final_action',
        (v) => v === none,
        JSON.stringify(none),
        `${what} the case must show no action (${JSON.stringify(none)}) and no block`,
      );
    },
  };
}

export const oneBlockAfterApproval: Expectation = {
  stage: 'block',
  text: 'one block request after the approval (exactly one POST /blocklist, accepted)',
  judge: (e) => {
    const posts = blockPosts(e.state);
    if (posts.length === 1 && posts[0] !== undefined && ok(posts[0])) return pass();
    if (posts.length === 0) {
      return fail(
        `no POST /blocklist after the approver approved: connect Block to the approved branch (the checker's approval body is ${JSON.stringify(e.mapping.approval.approve)}; give yours with a mapping)`,
        'no POST /blocklist',
      );
    }
    if (posts.length === 1) {
      return fail(
        `POST /blocklist was refused (${posts[0]?.status}): send JSON {"ip": <source_ip>, "event_id": <event_id>, "expires_minutes": 10} (the mock API's names, GET /openapi.json)`,
      );
    }
    return fail(`POST /blocklist was sent ${posts.length} times: send it once`, posts.map(show).join(', '));
  },
};

export const exactEntry: Expectation = {
  stage: 'block',
  text: 'the entry holds the address, the event id and expires_minutes 10',
  judge: (e) => {
    const entries = e.state.blocklist;
    const entry = entries[0];
    if (entries.length !== 1 || entry === undefined) {
      return fail(
        'there must be exactly one active block, for this alert (see the line above)',
        `${entries.length} entries`,
      );
    }
    const wrong: string[] = [];
    if (entry.ip !== e.facts.sourceIp) wrong.push(`address ${entry.ip}`);
    if (entry.event_id !== e.facts.eventId) wrong.push(`event id ${entry.event_id}`);
    if (entry.expires_minutes !== 10) wrong.push(`expires_minutes ${entry.expires_minutes}`);
    return wrong.length === 0
      ? pass()
      : fail(
          `the block has ${wrong.join(', ')}: send the alert's source_ip and event_id, and expires_minutes 10`,
          wrong.join(', '),
        );
  },
};

export const blockVerified: Expectation = {
  stage: 'block',
  text: 'a follow-up GET /blocklist/<ip> checks the entry',
  judge: (e) => {
    const post = blockPosts(e.state).find(ok);
    if (post === undefined) return fail('no accepted POST /blocklist (see above)');
    const lookups = requests(e.state, 'GET', blockPath(e.facts)).filter((j) => j.seq > post.seq && ok(j));
    return lookups.length > 0
      ? pass()
      : fail(
          `after POST /blocklist nothing asked GET ${blockPath(e.facts)}: verify the block there (blocked must be true, for this event) before recording it`,
          'no follow-up lookup',
        );
  },
};

export const caseAfterBlock: Expectation = {
  stage: 'record',
  text: 'one case of the event, written after the block',
  judge: (e) => {
    const one = oneCase(e, 'after the block');
    if (one.status !== 'pass') return one;
    const post = blockPosts(e.state).find(ok);
    const written = caseWrites(e.state).filter((j) => ok(j) && (post === undefined || j.seq > post.seq));
    return written.length > 0
      ? pass()
      : fail(
          'the case was written before the block: Record comes last, so the case can show the block and its verification',
        );
  },
};

export const namesApprover: Expectation = {
  stage: 'record',
  text: 'the case names the approver',
  judge: (e) => {
    const record = theCase(e);
    if (record === undefined) return fail('write exactly one case for the event first (see above)');
    return mentions(record, e.facts.approver)
      ? pass()
      : fail(
          `the case does not name the approver (${e.facts.approver}): take the approver from the Wait node's answer (e.g. {{ $json.body.approver }}) into the case`,
        );
  },
};

export const holdsEvidence: Expectation = {
  stage: 'record',
  text: 'the case holds the evidence (the identity Enrich returned)',
  judge: (e) =>
    holdsIdentity(e)
      ? pass()
      : fail(
          `the case does not hold the identity Enrich returned (${describeIdentity(e)}): put Enrich's answer into the case as evidence`,
        ),
};

export const showsBlocked: Expectation = {
  stage: 'record',
  text: 'the case shows the final action (blocked)',
  judge: (e) => {
    const blocked = e.mapping.case.blocked;
    return mappedField(
      e,
      'final_action',
      (v) => v === blocked,
      JSON.stringify(blocked),
      `after an approved, verified block the case must say so (${e.mapping.case.final_action}: ${JSON.stringify(blocked)})`,
    );
  },
};

export const showsVerification: Expectation = {
  stage: 'record',
  text: 'the case shows the verification result',
  judge: (e) => {
    const verified = e.mapping.case.verified;
    return mappedField(
      e,
      'verification',
      (v) => v === verified,
      JSON.stringify(verified),
      'put the result of the follow-up GET /blocklist/<ip> (its blocked: true) into the case',
    );
  },
};

export const holdsExpiry: Expectation = {
  stage: 'record',
  text: 'the case holds the expiry',
  judge: (e) => {
    const record = theCase(e);
    if (record === undefined) return fail('write exactly one case for the event first (see above)');
    const entry = e.state.blocklist[0];
    const found =
      (entry !== undefined && mentions(record, entry.expires_at)) ||
      someKey(record, /expir/i, (v) => v !== null && v !== undefined && v !== '');
    return found
      ? pass()
      : fail(
          "the case has no expiry: record the block's expires_minutes (10) or its expires_at, in a field whose name says expiry",
        );
  },
};

export const holdsRollbackInfo: Expectation = {
  stage: 'record',
  text: 'the case holds the rollback information',
  judge: (e) => {
    const record = theCase(e);
    if (record === undefined) return fail('write exactly one case for the event first (see above)');
    const found =
      someKey(record, /rollback/i, (v) => v !== null && v !== undefined && v !== '') ||
      mentions(record, 'DELETE /blocklist');
    return found
      ? pass()
      : fail(
          `the case has no rollback information: say how the block is undone (DELETE /blocklist/${e.facts.sourceIp}) in a field named rollback`,
        );
  },
};

export const firstRunDone = (stage: StageName): Expectation => ({
  stage,
  text: 'the first delivery finished (one block, a case written after it)',
  judge: (e) =>
    e.marks.firstRunDone === true
      ? pass()
      : fail(
          'the first delivery never produced a block and a case after it: pass the block and record stages first',
        ),
});

export const updatedOnSecond: Expectation = {
  stage: 'idempotency',
  text: 'the second delivery updates the existing case',
  judge: (e) => {
    const since = e.marks.followUpSeq ?? Number.POSITIVE_INFINITY;
    const updates = caseWrites(e.state).filter((j) => j.seq > since && ok(j));
    return updates.length > 0
      ? pass()
      : fail(
          `the second delivery wrote no case: when GET /cases/<event_id> finds the case, take the update branch and still write it (POST /cases with the same event_id)`,
          'no POST /cases after the second delivery',
        );
  },
};

export const noSecondCase: Expectation = {
  stage: 'idempotency',
  text: 'no second case (one case, the event’s)',
  judge: (e) => oneCase(e, 'after the same alert came twice,'),
};

export const noSecondBlock: Expectation = {
  stage: 'idempotency',
  text: 'no second block (one POST /blocklist in all, one active entry)',
  judge: (e) => {
    const posts = blockPosts(e.state);
    if (posts.length === 1 && e.state.blocklist.length === 1) return pass();
    return fail(
      'the second delivery sent POST /blocklist again: when the case lookup finds a case that already shows the block, skip Approve and Block and only update the case',
      `${posts.length} POST /blocklist, ${e.state.blocklist.length} active`,
    );
  },
};

/** The first failed case write of a connector-failure scenario. */
export const failedWrite = (state: State) => caseWrites(state).find((j) => j.status >= 500);

export const writeFailedOnce: Expectation = {
  stage: 'connector-failure',
  text: 'the case write fails once (the connector set to fail_next_write)',
  judge: (e) =>
    failedWrite(e.state) !== undefined
      ? pass()
      : fail(
          'no case write happened, so the failure never came: pass the record stage first',
          'no failed POST /cases',
        ),
};

export const blockNotRepeated: Expectation = {
  stage: 'connector-failure',
  text: 'the block succeeds and is not repeated',
  judge: (e) => {
    const posts = blockPosts(e.state);
    const failed = failedWrite(e.state);
    const after = failed === undefined ? [] : posts.filter((j) => j.seq > failed.seq);
    if (posts.length === 1 && posts[0] !== undefined && ok(posts[0])) return pass();
    if (after.length > 0) {
      return fail(
        "after the case write failed, POST /blocklist was sent again: when Record fails, resume only Record; don't run Block again",
        posts.map(show).join(', '),
      );
    }
    return fail('there must be exactly one accepted POST /blocklist', posts.map(show).join(', ') || 'none');
  },
};

export const ownerNotified: Expectation = {
  stage: 'connector-failure',
  text: 'the owner is notified after the failed write',
  judge: (e) => {
    const failed = failedWrite(e.state);
    if (failed === undefined) return fail('no failed case write (see above)');
    const notices = requests(e.state, 'POST', '/notify').filter((j) => j.seq > failed.seq && ok(j));
    return notices.length > 0
      ? pass()
      : fail(
          "the case write failed and nobody was told: on Record's error output send POST /notify to the case owner",
          'no POST /notify after the failed write',
        );
  },
};

export const onlyRecordResumed: Expectation = {
  stage: 'connector-failure',
  text: 'Record is resumed (a later case write succeeds) and nothing before it runs again',
  judge: (e) => {
    const failed = failedWrite(e.state);
    if (failed === undefined) return fail('no failed case write (see above)');
    const later = e.state.journal.filter((j) => j.seq > failed.seq);
    const rewritten = later.some((j) => j.method === 'POST' && j.path === '/cases' && ok(j));
    const repeated = later.filter(
      (j) => j.path.startsWith('/identity/') || (j.method === 'POST' && j.path === '/blocklist'),
    );
    if (approvalRequests(e.state).length > 1) {
      return fail(
        'after the failed case write the approval was asked again: resume only Record, not the run',
      );
    }
    if (repeated.length > 0) {
      return fail(
        `after the failed case write the run repeated ${repeated.map(show).join(', ')}: resume only Record`,
      );
    }
    return rewritten
      ? pass()
      : fail(
          'the case was never written after the failure: wait until GET /health says case_mode healthy, then run Record again with the same case',
          'no 2xx POST /cases after the failed one',
        );
  },
};

export const rollbackAccepted: Expectation = {
  stage: 'rollback',
  text: 'the rollback trigger accepts the event',
  judge: (e) => {
    const t = e.marks.followUpTrigger;
    if (t !== null && t.status !== null && t.status >= 200 && t.status < 300) return pass();
    return fail(
      `POST /webhook/${e.rollbackPath} ${t?.status === null || t === null ? `could not be sent (${t?.error ?? 'not sent'})` : `answered ${t.status}`}: ` +
        'build the rollback as its own webhook workflow at this path (or give yours with --rollback-path) and publish it',
    );
  },
};

export const exactUnblock: Expectation = {
  stage: 'rollback',
  text: 'the exact entry is removed (one DELETE /blocklist/<ip>)',
  judge: (e) => {
    const deletes = requests(e.state, 'DELETE', (p) => p.startsWith('/blocklist/'));
    const exact = deletes.filter((j) => j.path === blockPath(e.facts));
    if (exact.length === 1 && deletes.length === 1) return pass();
    if (deletes.length === 0) {
      return fail(
        `the rollback made no DELETE ${blockPath(e.facts)}: look the case up by event_id and remove the block of its source_ip`,
        'no DELETE',
      );
    }
    return fail(`send one DELETE ${blockPath(e.facts)}`, deletes.map(show).join(', '));
  },
};

export const addressAbsent: Expectation = {
  stage: 'rollback',
  text: 'the address is absent from the blocklist',
  judge: (e) =>
    e.state.blocklist.length === 0
      ? pass()
      : fail(`${e.facts.sourceIp} is still blocked after the rollback`, `${e.state.blocklist.length} active`),
};

export const absenceVerified: Expectation = {
  stage: 'rollback',
  text: 'the absence is verified (GET /blocklist/<ip> after the DELETE)',
  judge: (e) => {
    const removal = requests(e.state, 'DELETE', blockPath(e.facts))[0];
    if (removal === undefined) return fail('no DELETE (see above)');
    const checks = requests(e.state, 'GET', blockPath(e.facts)).filter((j) => j.seq > removal.seq);
    return checks.length > 0
      ? pass()
      : fail(
          `after DELETE ${blockPath(e.facts)} nothing checked the address: ask GET ${blockPath(e.facts)} and go on only when blocked is false`,
          'no lookup after the DELETE',
        );
  },
};

export const recoveryRecorded: Expectation = {
  stage: 'rollback',
  text: 'the recovery time is recorded in the case',
  judge: (e) => {
    const record = theCase(e);
    if (record === undefined) return fail('the rollback must update the one case of the event');
    const path = e.mapping.case.recovery_time;
    if (typeof dig(record, path) === 'number') return pass();
    if (someKey(record, /recover/i, (v) => typeof v === 'number')) return pass();
    return unjudged(
      `the case has no number at ${path} nor a field named *recover*; the seed leaves the name open: record the time from the rollback trigger to the verified absence and name your field in a mapping (--mapping, "case": {"recovery_time": "<your.path>"})`,
    );
  },
};
