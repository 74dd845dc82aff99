/** The Record stage: the case names the approver and holds the evidence, the outcome and the expiry. */
import { mentions, someKey } from '../evidence.js';
import {
  blockPosts,
  casesGap,
  caseWrites,
  describeIdentity,
  type Expectation,
  fail,
  gap,
  holdsIdentity,
  identityGap,
  mappedField,
  ok,
  oneCase,
  pass,
  requestCount,
  shown,
  theCase,
  valuesAt,
  WORDS,
} from './kit.js';

const R = WORDS.requires.record;

const NO_CASE_YET = 'write exactly one case for the event first (see above)';

export const caseAfterBlock: Expectation = {
  stage: 'record',
  text: R.caseAfterBlock.text,
  judge: (e) => {
    const one = oneCase(e, 'after the block');
    if (one.status !== 'pass') return one;
    const post = blockPosts(e.state).find(ok);
    const accepted = caseWrites(e.state).filter(ok);
    const written = accepted.filter((j) => post === undefined || j.seq > post.seq);
    return written.length > 0
      ? pass()
      : fail(
          'the case was written before the block: Record comes last, so the case can show the block and its verification',
          gap(
            'accepted POST /cases after POST /blocklist',
            requestCount(1),
            `0 (${accepted.length} before it)`,
          ),
        );
  },
};

export const namesApprover: Expectation = {
  stage: 'record',
  text: R.namesApprover.text,
  judge: (e) => {
    const record = theCase(e);
    if (record === undefined) return fail(NO_CASE_YET, casesGap(e));
    const held = valuesAt(record, /^approver$/i);
    return mentions(record, e.facts.approver)
      ? pass()
      : fail(
          `the case does not name the approver (${e.facts.approver}): take the approver from the Wait node's answer (e.g. {{ $json.body.approver }}) into the case`,
          gap(
            `case ${e.facts.eventId} approver`,
            e.facts.approver,
            held.length === 0 ? 'no field approver, no mention' : held.map(shown).join(', '),
          ),
        );
  },
};

export const holdsEvidence: Expectation = {
  stage: 'record',
  text: R.holdsEvidence.text,
  judge: (e) =>
    holdsIdentity(e)
      ? pass()
      : fail(
          `the case does not hold the identity Enrich returned (${describeIdentity(e)}): put Enrich's answer into the case as evidence`,
          identityGap(e),
        ),
};

export const showsBlocked: Expectation = {
  stage: 'record',
  text: R.showsBlocked.text,
  judge: (e) => {
    const blocked = e.mapping.case.blocked;
    return mappedField(
      e,
      'final_action',
      (v) => v === blocked,
      blocked,
      `after an approved, verified block the case must say so (${e.mapping.case.final_action}: ${JSON.stringify(blocked)})`,
    );
  },
};

export const showsVerification: Expectation = {
  stage: 'record',
  text: R.showsVerification.text,
  judge: (e) => {
    const verified = e.mapping.case.verified;
    return mappedField(
      e,
      'verification',
      (v) => v === verified,
      verified,
      'put the result of the follow-up GET /blocklist/<ip> (its blocked: true) into the case',
    );
  },
};

export const holdsExpiry: Expectation = {
  stage: 'record',
  text: R.holdsExpiry.text,
  judge: (e) => {
    const record = theCase(e);
    if (record === undefined) return fail(NO_CASE_YET, casesGap(e));
    const entry = e.state.blocklist[0];
    const found =
      (entry !== undefined && mentions(record, entry.expires_at)) ||
      someKey(record, /expir/i, (v) => v !== null && v !== undefined && v !== '');
    return found
      ? pass()
      : fail(
          "the case has no expiry: record the block's expires_minutes (10) or its expires_at, in a field whose name says expiry",
          gap(
            `case ${e.facts.eventId} expiry`,
            `expires_minutes 10${entry === undefined ? '' : ` or expires_at ${entry.expires_at}`}`,
            'no field named *expir*',
          ),
        );
  },
};

export const holdsRollbackInfo: Expectation = {
  stage: 'record',
  text: R.holdsRollbackInfo.text,
  judge: (e) => {
    const record = theCase(e);
    if (record === undefined) return fail(NO_CASE_YET, casesGap(e));
    const found =
      someKey(record, /rollback/i, (v) => v !== null && v !== undefined && v !== '') ||
      mentions(record, 'DELETE /blocklist');
    return found
      ? pass()
      : fail(
          `the case has no rollback information: say how the block is undone (DELETE /blocklist/${e.facts.sourceIp}) in a field named rollback`,
          gap(
            `case ${e.facts.eventId} rollback`,
            `DELETE /blocklist/${e.facts.sourceIp}`,
            'no field named *rollback*, no mention',
          ),
        );
  },
};
