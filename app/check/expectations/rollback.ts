/** Rollback: the exact entry is removed, its absence verified, the recovery time recorded. */
import { dig, someKey } from '../evidence.js';
import { blockPath, type Expectation, fail, pass, requests, show, theCase, unjudged, WORDS } from './kit.js';

const R = WORDS.requires.rollback;

export const rollbackAccepted: Expectation = {
  stage: 'rollback',
  text: R.accepted.text,
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
  text: R.exactUnblock.text,
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
  text: R.addressAbsent.text,
  judge: (e) =>
    e.state.blocklist.length === 0
      ? pass()
      : fail(`${e.facts.sourceIp} is still blocked after the rollback`, `${e.state.blocklist.length} active`),
};

export const absenceVerified: Expectation = {
  stage: 'rollback',
  text: R.absenceVerified.text,
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
  text: R.recoveryRecorded.text,
  judge: (e) => {
    const record = theCase(e);
    if (record === undefined) return fail('the rollback must update the one case of the event');
    const path = e.mapping.case.recovery_time;
    if (typeof dig(record, path) === 'number') return pass();
    if (someKey(record, /recover/i, (v) => typeof v === 'number')) return pass();
    return unjudged(
      `the case has no number at ${path} nor a field named *recover*; the exercise leaves the name open: record the time from the rollback trigger to the verified absence and name your field in a mapping (--mapping, "case": {"recovery_time": "<your.path>"})`,
    );
  },
};
