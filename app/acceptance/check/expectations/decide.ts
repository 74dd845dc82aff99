/** The Decide stage: below the threshold nothing is contained, and the enrichment is still recorded. */
import {
  approvalRequests,
  describeIdentity,
  type Expectation,
  fail,
  holdsIdentity,
  oneCase,
  pass,
  show,
  touching,
} from './kit.js';

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
