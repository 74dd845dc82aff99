/**
 * What each stage requires, in words, written once: the stage's goal and every expectation with the stimulus
 * that exercises it. The checker prints these beside PASS and FAIL (app/judges/expectations take their texts
 * from here), and the console shows a stage's brief before the trainee checks it. Requirements only, never
 * the solution: no node JSON, no expressions (test/stages/briefs.test.ts holds that, and holds each brief
 * equal to what the checker judges).
 * The approval threshold is a parameter because it is the workflow's decision (app/workflow/constants.ts,
 * copied as it is into the n8n Code nodes) and app/workflow reads the stages from here: importing it would
 * run an import back up.
 */
import { STAGE_NAMES, STAGE_TITLES, type StageName } from './stages.js';

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

/** One expectation: what the checker sends (`when`), and what it then requires (`text`). */
export interface Requirement {
  when: string;
  text: string;
}

export interface StageBrief {
  stage: StageName;
  title: string;
  /** The stage in one sentence, in the checker's terms. */
  goal: string;
  /** Every expectation of the stage, in the order the checker judges and prints them. */
  expectations: Requirement[];
}

/** The checker's stimuli and expectations in words, for a lab whose approval threshold is `at`. */
export function checkWords(at: number) {
  const below = at - 1;
  const stimulus = {
    valid: `valid alert, confidence ${below}`,
    /** An alert without one mapped field, or (`production`) with environment=production. */
    invalid: (field: string) =>
      field === 'production' ? 'alert with environment=production' : `alert without ${field}`,
    unknownUser: 'alert for a user the identity system does not know, confidence 92',
    boundary: `alert with confidence ${at}; the approver rejects`,
    approved: 'alert with confidence 92; the approver approves',
    unanswered: 'alert with confidence 92; nobody answers',
    duplicate: 'alert with confidence 92, approved, then the same alert again',
    connectorFailure: 'case connector set to fail_next_write; alert with confidence 92, approved',
    rollback: 'alert with confidence 92, approved, then the rollback trigger',
  };
  const anyInvalid = `${stimulus.invalid('production')}, or ${stimulus.invalid('one of the seven fields')}`;
  const approvalRequested = (when: string, what: string): Requirement => ({
    when,
    text: `${what} approval is requested (a notification carrying the resume URL)`,
  });
  const noAction = (when: string, what: string): Requirement => ({
    when,
    text: `${what} takes the no-action branch: no block request`,
  });
  /** The runs that end without action, as Record's expectations and hints name them. */
  const outcomes = { rejected: 'a rejected run', timedOut: 'a timed-out run' };
  const noneRecorded = (what: string) =>
    `${what} is recorded: a case of the event whose final action is none`;
  const firstRunDone = (when: string): Requirement => ({
    when,
    text: 'the first delivery finished (one block, a case written after it)',
  });
  /** Validate's record of the error, naming the field that failed. */
  const errorRecorded = (named: string) =>
    `the validation error is recorded (a notification or case naming ${named})`;

  const requires = {
    webhook: {
      accepts: { when: stimulus.valid, text: 'the webhook accepts the alert (POST answers 2xx)' },
      sevenFields: { when: stimulus.valid, text: 'all seven mapped fields appear in the execution data' },
    },
    validate: {
      nothingAsked: { when: anyInvalid, text: 'no enrichment or response request' },
      errorRecorded: {
        when: anyInvalid,
        text: errorRecorded('the field that failed (environment for production)'),
      },
    },
    enrich: {
      identityAsked: {
        when: stimulus.valid,
        text: 'a valid alert passes Validate and Enrich asks GET /identity/<user>',
      },
      userOnly: { when: stimulus.unknownUser, text: 'Enrich asks for the alert’s user and no other' },
      unknownStops: {
        when: stimulus.unknownUser,
        text: 'an identity that does not belong to the user stops the run (no approval request, no block)',
      },
    },
    'case-lookup': {
      afterEnrich: { when: stimulus.valid, text: 'Case lookup asks GET /cases/<event_id> after Enrich' },
    },
    decide: {
      noApprovalBelow: { when: stimulus.valid, text: `below ${at} no approval is requested` },
      noContainmentBelow: {
        when: stimulus.valid,
        text: `below ${at} no containment is requested (no POST or DELETE /blocklist)`,
      },
      enrichmentRecorded: {
        when: stimulus.valid,
        text: `below ${at} the enrichment is recorded (a case of the event holding the identity)`,
      },
      approvalAtThreshold: approvalRequested(stimulus.boundary, `at ${at}`),
    },
    approve: {
      rejectionNoBlock: noAction(stimulus.boundary, 'a rejection'),
      approvalRequested: approvalRequested(stimulus.approved, 'at 92'),
      noBlockBeforeAnswer: { when: stimulus.approved, text: 'no block request before the approver answers' },
      resumeAccepted: { when: stimulus.approved, text: 'the resume URL takes the approver’s decision' },
      approvalUnanswered: approvalRequested(stimulus.unanswered, 'without an answer'),
      timeoutNoBlock: noAction(stimulus.unanswered, 'no answer within the time limit'),
    },
    block: {
      oneBlock: {
        when: stimulus.approved,
        text: 'one block request after the approval (exactly one POST /blocklist, accepted)',
      },
      exactEntry: {
        when: stimulus.approved,
        text: 'the entry holds the address, the event id and expires_minutes 10',
      },
      verified: { when: stimulus.approved, text: 'a follow-up GET /blocklist/<ip> checks the entry' },
    },
    record: {
      rejectedNone: { when: stimulus.boundary, text: noneRecorded(outcomes.rejected) },
      caseAfterBlock: { when: stimulus.approved, text: 'one case of the event, written after the block' },
      namesApprover: { when: stimulus.approved, text: 'the case names the approver' },
      holdsEvidence: {
        when: stimulus.approved,
        text: 'the case holds the evidence (the identity Enrich returned)',
      },
      showsBlocked: { when: stimulus.approved, text: 'the case shows the final action (blocked)' },
      showsVerification: { when: stimulus.approved, text: 'the case shows the verification result' },
      holdsExpiry: { when: stimulus.approved, text: 'the case holds the expiry' },
      holdsRollbackInfo: { when: stimulus.approved, text: 'the case holds the rollback information' },
      timedOutNone: { when: stimulus.unanswered, text: noneRecorded(outcomes.timedOut) },
    },
    idempotency: {
      firstRunDone: firstRunDone(stimulus.duplicate),
      updatedOnSecond: { when: stimulus.duplicate, text: 'the second delivery updates the existing case' },
      noSecondCase: { when: stimulus.duplicate, text: 'no second case (one case, the event’s)' },
      noSecondBlock: {
        when: stimulus.duplicate,
        text: 'no second block (one POST /blocklist in all, one active entry)',
      },
    },
    'connector-failure': {
      writeFailedOnce: {
        when: stimulus.connectorFailure,
        text: 'the case write fails once (the connector set to fail_next_write)',
      },
      blockNotRepeated: { when: stimulus.connectorFailure, text: 'the block succeeds and is not repeated' },
      ownerNotified: {
        when: stimulus.connectorFailure,
        text: 'the owner is notified after the failed write',
      },
      onlyRecordResumed: {
        when: stimulus.connectorFailure,
        text: 'Record is resumed (a later case write succeeds) and nothing before it runs again',
      },
    },
    rollback: {
      firstRunDone: firstRunDone(stimulus.rollback),
      accepted: { when: stimulus.rollback, text: 'the rollback trigger accepts the event' },
      exactUnblock: {
        when: stimulus.rollback,
        text: 'the exact entry is removed (one DELETE /blocklist/<ip>)',
      },
      addressAbsent: { when: stimulus.rollback, text: 'the address is absent from the blocklist' },
      absenceVerified: {
        when: stimulus.rollback,
        text: 'the absence is verified (GET /blocklist/<ip> after the DELETE)',
      },
      recoveryRecorded: { when: stimulus.rollback, text: 'the recovery time is recorded in the case' },
    },
  } satisfies Record<StageName, Record<string, Requirement>>;

  const goals: Record<StageName, string> = {
    webhook: `Your published workflow takes the alert on its webhook (POST) and the run receives all seven fields: ${MAPPED_FIELDS.join(', ')}.`,
    validate:
      'An alert that lacks one of the seven fields, or whose environment is not training, is stopped before anything is asked, and the error is recorded, naming the field.',
    enrich:
      'A valid alert goes on to the identity system for the alert’s user; a user it does not know stops the run.',
    'case-lookup': 'After Enrich, the case of the alert is looked up by its event_id.',
    decide: `Below confidence ${at} nothing is contained and the enrichment is recorded in a case; at ${at} or above an approval is requested.`,
    approve:
      'The run waits for the approver: nothing is blocked before the answer, and a rejection or no answer within the time limit leads to no action.',
    block:
      'After an approval, the alert’s address is blocked once, for this event and 10 minutes, and the block is verified.',
    record:
      'One case per event, written last: the approver, the evidence, the final action, the verification, the expiry and how to roll back; a run without action is recorded too.',
    idempotency: 'The same alert again updates its one case and blocks nothing a second time.',
    'connector-failure':
      'When the case write fails, the owner is told and only the case write runs again, once the case system is healthy.',
    rollback:
      'A second workflow, triggered with the event, removes exactly that block, verifies the address is free and records the recovery time in the case.',
  };

  const briefs: StageBrief[] = STAGE_NAMES.map((stage) => ({
    stage,
    title: STAGE_TITLES[stage],
    goal: goals[stage],
    expectations: Object.values<Requirement>(requires[stage]),
  }));
  return { stimulus, requires, errorRecorded, outcomes, noneRecorded, briefs };
}

export type CheckWords = ReturnType<typeof checkWords>;
