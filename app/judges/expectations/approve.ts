/** The Approve stage: approval is asked before any block, and the answer decides. */
import type { StageName } from '../../stages/stages.js';
import {
  approvalRequests,
  blockPosts,
  counted,
  type Expectation,
  fail,
  gap,
  mappedField,
  type Outcome,
  oneCase,
  pass,
  requestCount,
  touching,
  WORDS,
} from './kit.js';

const R = WORDS.requires.approve;

const APPROVAL_REQUESTS = 'approval requests (POST /notify carrying the resume URL)';

/** What a line judged after the approval request says when none came. */
const noApprovalRequest = (): Outcome =>
  fail('no approval request was seen (see the line above)', gap(APPROVAL_REQUESTS, 'at least 1', '0'));

/** `text`: the requirement's words (app/stages/briefs.ts) for where it is asked. */
export function approvalRequested(stage: StageName, text: string, hint: string): Expectation {
  return {
    stage,
    text,
    judge: (e) => {
      if (approvalRequests(e.state).length > 0) return pass();
      if (e.state.notifications.length > 0) {
        return fail(
          'a notification was sent but none carries the resume URL: put {{ $execution.resumeUrl }} into the approval request so the approver can answer',
          gap(
            APPROVAL_REQUESTS,
            'at least 1',
            `0 (${e.state.notifications.length} notification(s) without it)`,
          ),
        );
      }
      return fail(hint, gap(APPROVAL_REQUESTS, 'at least 1', '0'));
    },
  };
}

export const noBlockBeforeDecision: Expectation = {
  stage: 'approve',
  text: R.noBlockBeforeAnswer.text,
  judge: (e) => {
    const at = e.marks.atApprovalRequest;
    if (at === null) return noApprovalRequest();
    const early = blockPosts(at);
    return early.length === 0
      ? pass()
      : fail(
          'POST /blocklist was sent before the approver answered: move Block after the Wait node, on its approved branch',
          gap('POST /blocklist before the approver answered', requestCount(0), counted(early)),
        );
  },
};

export const resumeAccepted: Expectation = {
  stage: 'approve',
  text: R.resumeAccepted.text,
  judge: (e) => {
    const status = e.marks.resumeStatus;
    if (status !== null && status >= 200 && status < 300) return pass();
    if (e.marks.atApprovalRequest === null) return noApprovalRequest();
    return fail(
      `the resume URL answered ${status ?? 'nothing'}: after the approval request, wait in a Wait node that resumes "On Webhook Call" (POST), and send this run's own {{ $execution.resumeUrl }}`,
      gap("the approver's POST to the resume URL", 'a 2xx answer', status ?? 'no answer'),
    );
  },
};

export function noBlockAfter(stage: StageName, text: string, hint: string): Expectation {
  return {
    stage,
    text,
    judge: (e) => {
      const writes = touching(e.state, '/blocklist').filter((j) => j.method !== 'GET');
      return writes.length === 0
        ? pass()
        : fail(hint, gap('POST or DELETE /blocklist', requestCount(0), counted(writes)));
    },
  };
}

export function recordedNoAction(stage: StageName, what: string): Expectation {
  return {
    stage,
    text: WORDS.noneRecorded(what),
    judge: (e) => {
      const one = oneCase(e, `${what}:`);
      if (one.status !== 'pass') {
        return what.includes('time')
          ? {
              ...one,
              hint: `${one.hint} (give the Wait node a time limit, so a run nobody answers goes on to the no-action branch)`,
            }
          : one;
      }
      const none = e.mapping.case.none;
      return mappedField(
        e,
        'final_action',
        (v) => v === none,
        none,
        `${what} the case must show no action (${JSON.stringify(none)}) and no block`,
      );
    },
  };
}
