/**
 * The stimuli the checker sends, stage by stage (the seed's node table, its workflow rules and its matrix),
 * each with the expectations of expectations.ts it is judged by, in the order they run.
 */

import { resumeUrlIn } from '../judging/approval-request.js';
import type { StateReading } from '../mock-api-client/readings.js';
import { STAGE_NAMES, type StageName } from '../stages/stages.js';
import { APPROVAL_THRESHOLD } from '../workflow/constants.js';
import { alertPayload } from '../workflow/scenario.js';
import { saysInText } from './evidence.js';
import type { Facts, Scenario } from './expectations.js';
import {
  absenceVerified,
  addressAbsent,
  approvalRequested,
  approvalRequests,
  BELOW_THRESHOLD,
  blockNotRepeated,
  blockPosts,
  blockVerified,
  caseAfterBlock,
  caseLookupAfterEnrich,
  caseWrites,
  counted,
  enrichmentRecordedBelowThreshold,
  exactEntry,
  exactUnblock,
  fail,
  firstRunDone,
  gap,
  holdsEvidence,
  holdsExpiry,
  holdsRollbackInfo,
  identityAsked,
  identityOfTheUserOnly,
  MAPPED_FIELDS,
  namesApprover,
  noApprovalBelowThreshold,
  noBlockAfter,
  noBlockBeforeDecision,
  noContainmentBelowThreshold,
  noSecondBlock,
  noSecondCase,
  ok,
  oneBlockAfterApproval,
  onlyRecordResumed,
  ownerNotified,
  pass,
  recordedNoAction,
  recoveryRecorded,
  resumeAccepted,
  rollbackAccepted,
  sevenFields,
  showsBlocked,
  showsVerification,
  unknownIdentityStops,
  updatedOnSecond,
  WORDS,
  webhookAccepts,
  writeFailedOnce,
} from './expectations.js';

const { stimulus: SENT, requires: R } = WORDS;

/** The hint of both confidence-92 stimuli when no approval request came. */
const NO_APPROVAL_AT_92 = `confidence 92 asked for no approval: after Decide (>= ${APPROVAL_THRESHOLD}) send the approval request, a POST /notify carrying {{ $execution.resumeUrl }}, then wait for the answer`;

export type {
  Evidence,
  ExecutionFinding,
  Expectation,
  Facts,
  Marks,
  Outcome,
  Scenario,
} from './expectations.js';
export { gap, MAPPED_FIELDS, webhookAccepts } from './expectations.js';

// ---------------------------------------------------------------------------------------------------------
// The scenarios, in the order they run

function baseAlert(f: Facts, confidence: number): Record<string, unknown> {
  return alertPayload(f, { confidence });
}

function validationScenario(field: (typeof MAPPED_FIELDS)[number] | 'production'): Scenario {
  const stimulus = SENT.invalid(field);
  const phrase = field === 'production' ? 'with environment=production' : `without ${field}`;
  const condition = field === 'production' ? 'environment is not training' : `${field} is missing`;
  const named = field === 'production' ? 'environment' : field;
  return {
    id: `validate-${field}`,
    stimulus,
    user: 'lab',
    approver: 'reject',
    alert: (f) => {
      const alert = baseAlert(f, 92);
      if (field === 'production') alert.environment = 'production';
      else delete alert[field];
      return alert;
    },
    expectations: [
      {
        stage: 'validate',
        text: R.validate.nothingAsked.text,
        judge: (e) => {
          // Recording the error is allowed anywhere (a notification, or a case write); asking is not.
          const made = e.state.journal.filter(
            (j) =>
              j.path.startsWith('/identity/') ||
              j.path === '/blocklist' ||
              j.path.startsWith('/blocklist/') ||
              (j.method === 'GET' && j.path.startsWith('/cases/')),
          );
          const approvals = approvalRequests(e.state).length;
          if (made.length === 0 && approvals === 0) return pass();
          const first = made[0];
          return fail(
            `a run ${phrase} still ${first !== undefined ? `called ${first.method} ${first.path}` : 'asked for approval'}: stop the run in Validate when ${condition}`,
            gap(
              `enrichment, response and approval requests ${phrase}`,
              0,
              made.length > 0 ? counted(made) : `${approvals} approval request(s)`,
            ),
          );
        },
      },
      {
        stage: 'validate',
        text: WORDS.errorRecorded(named),
        judge: (e) => {
          const notices = e.state.notifications.filter((n) => resumeUrlIn(n) === undefined);
          // Named in a sentence or list (a value), not merely a copied alert field (a key).
          if ([...notices, ...e.state.cases].some((n) => saysInText(n, named))) return pass();
          if (notices.length === 0 && e.state.cases.length === 0) {
            return fail(
              `a run ${phrase} recorded nothing: before stopping, record the validation error (POST /notify), naming ${named}`,
              gap(`a notification or case naming ${named}`, 1, '0 (no notification, no case)'),
            );
          }
          const notice = notices[0];
          const [record, kept] =
            notice !== undefined
              ? [`notification ${notice.id ?? ''}`.trim(), notice]
              : [`case ${e.state.cases[0]?.event_id}`, e.state.cases[0]];
          const text = JSON.stringify(kept);
          return fail(
            `the record of a run ${phrase} does not name ${named}: say which field failed, e.g. "${field === 'production' ? 'environment must be training' : `${field} is required`}"`,
            gap(record, `text naming ${named}`, text.length > 160 ? `${text.slice(0, 160)}…` : text),
          );
        },
      },
    ],
  };
}

export const SCENARIOS: readonly Scenario[] = [
  {
    id: `valid-${BELOW_THRESHOLD}`,
    stimulus: SENT.valid,
    user: 'lab',
    approver: 'reject',
    alert: (f) => baseAlert(f, BELOW_THRESHOLD),
    expectations: [
      webhookAccepts,
      sevenFields,
      identityAsked('enrich'),
      caseLookupAfterEnrich(),
      noApprovalBelowThreshold,
      noContainmentBelowThreshold,
      enrichmentRecordedBelowThreshold,
    ],
  },
  ...(['production', ...MAPPED_FIELDS] as const).map(validationScenario),
  {
    id: 'unknown-user',
    stimulus: SENT.unknownUser,
    user: 'unknown',
    approver: 'reject',
    alert: (f) => baseAlert(f, 92),
    expectations: [identityOfTheUserOnly, unknownIdentityStops],
  },
  {
    id: `boundary-${APPROVAL_THRESHOLD}`,
    stimulus: SENT.boundary,
    user: 'lab',
    approver: 'reject',
    alert: (f) => baseAlert(f, APPROVAL_THRESHOLD),
    expectations: [
      approvalRequested(
        'decide',
        R.decide.approvalAtThreshold.text,
        `confidence ${APPROVAL_THRESHOLD} asked for no approval: Decide must use >= ${APPROVAL_THRESHOLD}, so ${APPROVAL_THRESHOLD} itself asks; the approval request is a POST /notify that carries {{ $execution.resumeUrl }}`,
      ),
      noBlockAfter(
        'approve',
        R.approve.rejectionNoBlock.text,
        "after the approver rejected, a blocklist request was still sent: route the Wait node's rejected branch to no action",
      ),
      recordedNoAction('record', WORDS.outcomes.rejected),
    ],
  },
  {
    id: 'positive-92',
    stimulus: SENT.approved,
    user: 'lab',
    approver: 'approve',
    alert: (f) => baseAlert(f, 92),
    expectations: [
      approvalRequested('approve', R.approve.approvalRequested.text, NO_APPROVAL_AT_92),
      noBlockBeforeDecision,
      resumeAccepted,
      oneBlockAfterApproval,
      exactEntry,
      blockVerified,
      caseAfterBlock,
      namesApprover,
      holdsEvidence,
      showsBlocked,
      showsVerification,
      holdsExpiry,
      holdsRollbackInfo,
    ],
  },
  {
    id: 'timeout-92',
    stimulus: SENT.unanswered,
    user: 'lab',
    approver: 'silent',
    alert: (f) => baseAlert(f, 92),
    expectations: [
      approvalRequested('approve', R.approve.approvalUnanswered.text, NO_APPROVAL_AT_92),
      noBlockAfter(
        'approve',
        R.approve.timeoutNoBlock.text,
        "when nobody answered, a blocklist request was still sent: route the Wait node's time-limit exit to no action",
      ),
      recordedNoAction('record', WORDS.outcomes.timedOut),
    ],
  },
  {
    id: 'duplicate',
    stimulus: SENT.duplicate,
    user: 'lab',
    approver: 'approve',
    followUp: 'deliver_again',
    alert: (f) => baseAlert(f, 92),
    expectations: [firstRunDone('idempotency'), updatedOnSecond, noSecondCase, noSecondBlock],
  },
  {
    id: 'connector-failure',
    stimulus: SENT.connectorFailure,
    user: 'lab',
    approver: 'approve',
    setup: 'fail_next_write',
    alert: (f) => baseAlert(f, 92),
    expectations: [writeFailedOnce, blockNotRepeated, ownerNotified, onlyRecordResumed],
  },
  {
    id: 'rollback',
    stimulus: SENT.rollback,
    user: 'lab',
    approver: 'approve',
    followUp: 'rollback',
    alert: (f) => baseAlert(f, 92),
    expectations: [
      firstRunDone('rollback'),
      rollbackAccepted,
      exactUnblock,
      addressAbsent,
      absenceVerified,
      recoveryRecorded,
    ],
  },
];

/** The stages up to and including `last`, in the seed's order. */
export function stagesUpTo(last: StageName | 'all'): StageName[] {
  if (last === 'all') return [...STAGE_NAMES];
  return STAGE_NAMES.slice(0, STAGE_NAMES.indexOf(last) + 1);
}

/** The scenarios that judge at least one of these stages, each with only those stages' expectations. */
export function scenariosFor(stages: readonly StageName[]): Scenario[] {
  return SCENARIOS.map((s) => ({
    ...s,
    expectations: s.expectations.filter((x) => stages.includes(x.stage)),
  })).filter((s) => s.expectations.length > 0);
}

/** The first run of a two-delivery scenario is done: one accepted block and a case written after it. */
export function firstRunFinished(state: StateReading): boolean {
  const post = blockPosts(state).find(ok);
  return (
    post !== undefined &&
    state.blocklist.length === 1 &&
    caseWrites(state).some((j) => ok(j) && j.seq > post.seq)
  );
}
