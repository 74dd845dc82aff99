/** Connector failure: a failed case write is retried alone; the owner is told. */
import {
  approvalRequests,
  blockPosts,
  caseWrites,
  counted,
  type Evidence,
  type Expectation,
  fail,
  failedWrite,
  gap,
  ok,
  pass,
  requestCount,
  requests,
  show,
  WORDS,
} from './kit.js';

const R = WORDS.requires['connector-failure'];

const FAILED_WRITE = 'POST /cases answered 5xx (fail_next_write)';

/** What a line judged after the failed write says when none came. */
const noFailedWrite = (e: Evidence) =>
  fail(
    'no failed case write (see above)',
    gap(FAILED_WRITE, requestCount(1), `0 (${counted(caseWrites(e.state))} POST /cases in all)`),
  );

export const writeFailedOnce: Expectation = {
  stage: 'connector-failure',
  text: R.writeFailedOnce.text,
  judge: (e) =>
    failedWrite(e.state) !== undefined
      ? pass()
      : fail(
          'no case write happened, so the failure never came: pass the record stage first',
          gap(FAILED_WRITE, requestCount(1), `0 (${counted(caseWrites(e.state))} POST /cases in all)`),
        ),
};

export const blockNotRepeated: Expectation = {
  stage: 'connector-failure',
  text: R.blockNotRepeated.text,
  judge: (e) => {
    const posts = blockPosts(e.state);
    const failed = failedWrite(e.state);
    const after = failed === undefined ? [] : posts.filter((j) => j.seq > failed.seq);
    if (posts.length === 1 && posts[0] !== undefined && ok(posts[0])) return pass();
    if (after.length > 0) {
      return fail(
        "after the case write failed, POST /blocklist was sent again: when Record fails, resume only Record; don't run Block again",
        gap('POST /blocklist', `${requestCount(1)} in all`, counted(posts)),
      );
    }
    return fail(
      'there must be exactly one accepted POST /blocklist',
      gap('POST /blocklist', `${requestCount(1)}, accepted`, counted(posts)),
    );
  },
};

export const ownerNotified: Expectation = {
  stage: 'connector-failure',
  text: R.ownerNotified.text,
  judge: (e) => {
    const failed = failedWrite(e.state);
    if (failed === undefined) return noFailedWrite(e);
    const notices = requests(e.state, 'POST', '/notify').filter((j) => j.seq > failed.seq && ok(j));
    return notices.length > 0
      ? pass()
      : fail(
          "the case write failed and nobody was told: on Record's error output send POST /notify to the case owner",
          gap(
            `POST /notify after the failed ${failed.method} ${failed.path} (${failed.status})`,
            requestCount(1),
            0,
          ),
        );
  },
};

export const onlyRecordResumed: Expectation = {
  stage: 'connector-failure',
  text: R.onlyRecordResumed.text,
  judge: (e) => {
    const failed = failedWrite(e.state);
    if (failed === undefined) return noFailedWrite(e);
    const later = e.state.journal.filter((j) => j.seq > failed.seq);
    const rewritten = later.some((j) => j.method === 'POST' && j.path === '/cases' && ok(j));
    const repeated = later.filter(
      (j) => j.path.startsWith('/identity/') || (j.method === 'POST' && j.path === '/blocklist'),
    );
    const approvals = approvalRequests(e.state).length;
    if (approvals > 1) {
      return fail(
        'after the failed case write the approval was asked again: resume only Record, not the run',
        gap('approval requests', 1, approvals),
      );
    }
    if (repeated.length > 0) {
      return fail(
        `after the failed case write the run repeated ${repeated.map(show).join(', ')}: resume only Record`,
        gap(
          'GET /identity or POST /blocklist after the failed POST /cases',
          requestCount(0),
          counted(repeated),
        ),
      );
    }
    return rewritten
      ? pass()
      : fail(
          'the case was never written after the failure: wait until GET /health says case_mode healthy, then run Record again with the same case',
          gap(
            'accepted POST /cases after the failed one',
            requestCount(1),
            `0 (${counted(later.filter((j) => j.method === 'POST' && j.path === '/cases'))} sent)`,
          ),
        );
  },
};
