/** Connector failure: a failed case write is retried alone; the owner is told. */
import {
  approvalRequests,
  blockPosts,
  type Expectation,
  fail,
  failedWrite,
  ok,
  pass,
  requests,
  show,
  WORDS,
} from './kit.js';

const R = WORDS.requires['connector-failure'];

export const writeFailedOnce: Expectation = {
  stage: 'connector-failure',
  text: R.writeFailedOnce.text,
  judge: (e) =>
    failedWrite(e.state) !== undefined
      ? pass()
      : fail(
          'no case write happened, so the failure never came: pass the record stage first',
          'no failed POST /cases',
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
        posts.map(show).join(', '),
      );
    }
    return fail('there must be exactly one accepted POST /blocklist', posts.map(show).join(', ') || 'none');
  },
};

export const ownerNotified: Expectation = {
  stage: 'connector-failure',
  text: R.ownerNotified.text,
  judge: (e) => {
    const failed = failedWrite(e.state);
    if (failed === undefined) return fail('no failed case write (see above)');
    const notices = requests(e.state, 'POST', '/notify').filter((j) => j.seq > failed.seq && ok(j));
    return notices.length > 0
      ? pass()
      : fail(
          "the case write failed and nobody was told: on Record's error output send POST /notify to the case owner",
          'no POST /notify after the failed write',
        );
  },
};

export const onlyRecordResumed: Expectation = {
  stage: 'connector-failure',
  text: R.onlyRecordResumed.text,
  judge: (e) => {
    const failed = failedWrite(e.state);
    if (failed === undefined) return fail('no failed case write (see above)');
    const later = e.state.journal.filter((j) => j.seq > failed.seq);
    const rewritten = later.some((j) => j.method === 'POST' && j.path === '/cases' && ok(j));
    const repeated = later.filter(
      (j) => j.path.startsWith('/identity/') || (j.method === 'POST' && j.path === '/blocklist'),
    );
    if (approvalRequests(e.state).length > 1) {
      return fail(
        'after the failed case write the approval was asked again: resume only Record, not the run',
      );
    }
    if (repeated.length > 0) {
      return fail(
        `after the failed case write the run repeated ${repeated.map(show).join(', ')}: resume only Record`,
      );
    }
    return rewritten
      ? pass()
      : fail(
          'the case was never written after the failure: wait until GET /health says case_mode healthy, then run Record again with the same case',
          'no 2xx POST /cases after the failed one',
        );
  },
};
