/**
 * Which row of the acceptance matrix a trainee's alert is, and which of the checker's expectations judge a
 * run of it: the checker's own (app/judges/scenarios.ts), picked by the scenario whose stimulus the alert
 * is. The checker spreads the expectations of a valid alert's first stages over its below-threshold
 * stimulus; a run of any valid alert of the lab's user is judged by those too.
 */
import { BELOW_THRESHOLD, resumeAccepted } from '../judges/expectations.js';
import { type Expectation, MAPPED_FIELDS, SCENARIOS, type Scenario } from '../judges/scenarios.js';
import { STAGE_NAMES, type StageName } from '../stages/stages.js';
import { APPROVAL_THRESHOLD } from '../workflow/constants.js';

/** The alert's row: the matrix's names, `unknown_user`, `rollback`, or `other` (no alert of the exercise). */
export type Kind =
  | 'positive'
  | 'approval_rejected'
  | 'approval_timed_out'
  | 'approval_pending'
  | 'invalid_input'
  | 'unknown_user'
  | 'low_confidence'
  | 'duplicate_delivery'
  | 'connector_failure'
  | 'rollback'
  | 'other';

/** What the run shows of the approval: the approver's decision, none within the limit, still waiting. */
export type Approval = 'approve' | 'reject' | 'timed_out' | 'waiting' | 'none';

export interface AlertFacts {
  alert: Record<string, unknown>;
  /** The identity system knows the alert's user. */
  knownUser: boolean;
  /** A case of the event was written before the run began. */
  caseBefore: boolean;
  /** A case write of the run was refused by the failing connector (5xx). */
  connectorFailed: boolean;
  approval: Approval;
}

export interface Classified {
  kind: Kind;
  /** The row in words. */
  text: string;
  /** The checker's expectations that judge this run, in stage order; none for `other`. */
  expectations: Expectation[];
  /** The scenario's approver, for the facts the expectations read. */
  scenario: Scenario | null;
}

const scenario = (id: string): Scenario => {
  const found = SCENARIOS.find((s) => s.id === id);
  if (found === undefined) throw new Error(`the checker has no scenario ${id}`);
  return found;
};

const missing = (value: unknown) => value === undefined || value === null || value === '';

/** The first reason the alert is not one the exercise accepts, as the checker's validation stimuli name it. */
export function invalidField(alert: Record<string, unknown>): string | null {
  for (const field of MAPPED_FIELDS) if (missing(alert[field])) return field;
  if (alert.environment !== 'training') return 'production';
  if (!Number.isInteger(alert.confidence)) return 'confidence';
  if (typeof alert.successful_login !== 'boolean') return 'successful_login';
  return null;
}

/** A rollback trigger (the event to roll back) rather than an alert. */
export function isRollbackTrigger(body: Record<string, unknown>): boolean {
  return typeof body.event_id === 'string' && body.confidence === undefined && body.event_type === undefined;
}

const FIRST_STAGES: readonly StageName[] = ['webhook', 'validate', 'enrich', 'case-lookup'];

const inStageOrder = (xs: Expectation[]) =>
  [...xs].sort((a, b) => STAGE_NAMES.indexOf(a.stage) - STAGE_NAMES.indexOf(b.stage));

export function classify(facts: AlertFacts): Classified {
  const { alert } = facts;
  const judged = (kind: Kind, text: string, s: Scenario, xs = s.expectations): Classified => ({
    kind,
    text,
    expectations: inStageOrder(xs),
    scenario: s,
  });
  if (isRollbackTrigger(alert)) {
    const s = scenario('rollback');
    const own = s.expectations.filter((x) => x.stage === 'rollback');
    return judged('rollback', `the rollback of ${String(alert.event_id)}`, s, own);
  }
  const bad = invalidField(alert);
  if (bad !== null) {
    const s = SCENARIOS.find((x) => x.id === `validate-${bad}`);
    const why =
      bad === 'production' ? `environment ${JSON.stringify(alert.environment)}` : `${bad} missing or wrong`;
    if (s === undefined)
      return { kind: 'invalid_input', text: `invalid input (${why})`, expectations: [], scenario: null };
    return judged('invalid_input', `invalid input (${why})`, s);
  }
  if (!facts.knownUser)
    return judged(
      'unknown_user',
      `a user the identity system does not know (${String(alert.user)})`,
      scenario('unknown-user'),
    );
  const confidence = Number(alert.confidence);
  const valid = scenario(`valid-${BELOW_THRESHOLD}`);
  if (confidence < APPROVAL_THRESHOLD)
    return judged('low_confidence', `low confidence (${confidence} < ${APPROVAL_THRESHOLD})`, valid);
  const first = valid.expectations.filter((x) => FIRST_STAGES.includes(x.stage));
  const at = `confidence ${confidence} >= ${APPROVAL_THRESHOLD}`;
  if (facts.caseBefore) {
    const s = scenario('duplicate');
    return judged('duplicate_delivery', `a duplicate delivery (${at}; the event has a case already)`, s);
  }
  if (facts.connectorFailed)
    return judged(
      'connector_failure',
      `a connector failure (${at}; a case write failed)`,
      scenario('connector-failure'),
    );
  const positive = scenario('positive-92');
  const asked = positive.expectations.filter((x) => x.stage === 'approve' && x !== resumeAccepted);
  switch (facts.approval) {
    case 'reject': {
      const boundary = scenario(`boundary-${APPROVAL_THRESHOLD}`);
      // At the threshold itself the checker's own stimulus; above it, its later stages.
      const own =
        confidence === APPROVAL_THRESHOLD
          ? boundary.expectations
          : [asked[0], ...boundary.expectations.filter((x) => x.stage !== 'decide')].flatMap((x) =>
              x ? [x] : [],
            );
      return judged('approval_rejected', `${at}, the approver rejected`, boundary, [...first, ...own]);
    }
    case 'timed_out': {
      const s = scenario('timeout-92');
      return judged('approval_timed_out', `${at}, nobody answered the approval in time`, s, [
        ...first,
        ...s.expectations,
      ]);
    }
    case 'waiting':
      // Judged up to its approval request; the rest when it ends.
      return judged('approval_pending', `${at}, waiting for the approver`, positive, [...first, ...asked]);
    default:
      return judged(
        'positive',
        `positive (${at})${facts.approval === 'approve' ? ', the approver approved' : ''}`,
        positive,
        [...first, ...positive.expectations],
      );
  }
}
