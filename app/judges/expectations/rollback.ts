/** Rollback: the exact entry is removed, its absence verified, the recovery time recorded. */
import { dig, someKey } from '../evidence.js';
import {
  blockPath,
  casesGap,
  counted,
  type Expectation,
  fail,
  gap,
  pass,
  requestCount,
  requests,
  theCase,
  unjudged,
  WORDS,
} from './kit.js';

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
      gap(
        `POST /webhook/${e.rollbackPath}`,
        'a 2xx answer',
        t === null || t.status === null ? `no answer (${t?.error ?? 'not sent'})` : t.status,
      ),
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
        gap(`DELETE ${blockPath(e.facts)}`, requestCount(1), 0),
      );
    }
    return fail(
      `send one DELETE ${blockPath(e.facts)}`,
      gap('DELETE /blocklist/…', `${requestCount(1)}, DELETE ${blockPath(e.facts)}`, counted(deletes)),
    );
  },
};

export const addressAbsent: Expectation = {
  stage: 'rollback',
  text: R.addressAbsent.text,
  judge: (e) =>
    e.state.blocklist.length === 0
      ? pass()
      : fail(
          `${e.facts.sourceIp} is still blocked after the rollback`,
          gap(
            'active blocklist entries',
            0,
            `${e.state.blocklist.length} (${e.state.blocklist.map((b) => b.ip).join(', ')})`,
          ),
        ),
};

export const absenceVerified: Expectation = {
  stage: 'rollback',
  text: R.absenceVerified.text,
  judge: (e) => {
    const removal = requests(e.state, 'DELETE', blockPath(e.facts))[0];
    if (removal === undefined) {
      return fail('no DELETE (see above)', gap(`DELETE ${blockPath(e.facts)}`, requestCount(1), 0));
    }
    const checks = requests(e.state, 'GET', blockPath(e.facts)).filter((j) => j.seq > removal.seq);
    return checks.length > 0
      ? pass()
      : fail(
          `after DELETE ${blockPath(e.facts)} nothing checked the address: ask GET ${blockPath(e.facts)} and go on only when blocked is false`,
          gap(`GET ${blockPath(e.facts)} after the DELETE`, requestCount(1), 0),
        );
  },
};

export const recoveryRecorded: Expectation = {
  stage: 'rollback',
  text: R.recoveryRecorded.text,
  judge: (e) => {
    const record = theCase(e);
    if (record === undefined) return fail('the rollback must update the one case of the event', casesGap(e));
    const path = e.mapping.case.recovery_time;
    if (typeof dig(record, path) === 'number') return pass();
    if (someKey(record, /recover/i, (v) => typeof v === 'number')) return pass();
    return unjudged(
      `the case has no number at ${path} nor a field named *recover*; the exercise leaves the name open: record the time from the rollback trigger to the verified absence and name your field in a mapping (--mapping, "case": {"recovery_time": "<your.path>"})`,
    );
  },
};
