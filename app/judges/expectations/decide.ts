/** The Decide stage: below the threshold nothing is contained, and the enrichment is still recorded. */
import { APPROVAL_THRESHOLD } from '../../workflow/constants.js';
import {
  approvalRequests,
  counted,
  describeIdentity,
  type Expectation,
  fail,
  gap,
  holdsIdentity,
  identityGap,
  oneCase,
  pass,
  requestCount,
  show,
  touching,
  WORDS,
} from './kit.js';

const R = WORDS.requires.decide;

/** The threshold, and the confidence just below it that the valid-below scenario sends. */
const AT = APPROVAL_THRESHOLD;
export const BELOW_THRESHOLD = AT - 1;

export const noApprovalBelowThreshold: Expectation = {
  stage: 'decide',
  text: R.noApprovalBelow.text,
  judge: (e) => {
    const approvals = approvalRequests(e.state);
    return approvals.length === 0
      ? pass()
      : fail(
          `confidence ${BELOW_THRESHOLD} asked for approval: Decide must compare confidence >= ${AT}, and ${BELOW_THRESHOLD} is below`,
          gap(`approval requests at confidence ${BELOW_THRESHOLD}`, 0, approvals.length),
        );
  },
};

export const noContainmentBelowThreshold: Expectation = {
  stage: 'decide',
  text: R.noContainmentBelow.text,
  judge: (e) => {
    const writes = touching(e.state, '/blocklist').filter((j) => j.method !== 'GET');
    return writes.length === 0
      ? pass()
      : fail(
          `confidence ${BELOW_THRESHOLD} still called ${writes.map(show).join(', ')}: Decide's below-${AT} branch must not reach Block`,
          gap(`POST or DELETE /blocklist at confidence ${BELOW_THRESHOLD}`, requestCount(0), counted(writes)),
        );
  },
};

export const enrichmentRecordedBelowThreshold: Expectation = {
  stage: 'decide',
  text: R.enrichmentRecorded.text,
  judge: (e) => {
    const outcome = oneCase(e, `after confidence ${BELOW_THRESHOLD}`);
    if (outcome.status !== 'pass') return outcome;
    return holdsIdentity(e)
      ? pass()
      : fail(
          `the case does not hold the identity Enrich returned (${describeIdentity(e)}): put Enrich's answer into the case as evidence`,
          identityGap(e),
        );
  },
};
