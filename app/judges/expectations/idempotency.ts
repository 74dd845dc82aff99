/** Idempotency: the same alert twice updates one case, with no second block. */
import {
  blockPosts,
  caseWrites,
  type Evidence,
  type Expectation,
  fail,
  gap,
  gaps,
  ok,
  oneCase,
  pass,
  requestCount,
  WORDS,
} from './kit.js';

const R = WORDS.requires.idempotency;

/** What the first delivery left: its accepted block, the active entries, and the cases written after it. */
function firstRunGot(e: Evidence): string {
  const post = blockPosts(e.state).find(ok);
  const after = post === undefined ? [] : caseWrites(e.state).filter((j) => ok(j) && j.seq > post.seq);
  return post === undefined
    ? `no accepted POST /blocklist, ${e.state.blocklist.length} active entries`
    : `${e.state.blocklist.length} active entries, ${after.length} accepted POST /cases after the block`;
}

export const firstRunDone = (stage: 'idempotency' | 'rollback'): Expectation => ({
  stage,
  text: WORDS.requires[stage].firstRunDone.text,
  judge: (e) =>
    e.marks.firstRunDone === true
      ? pass()
      : fail(
          'the first delivery never produced a block and a case after it: pass the block and record stages first',
          gap('first delivery', '1 active entry, then an accepted POST /cases', firstRunGot(e)),
        ),
});

export const updatedOnSecond: Expectation = {
  stage: 'idempotency',
  text: R.updatedOnSecond.text,
  judge: (e) => {
    const since = e.marks.followUpSeq ?? Number.POSITIVE_INFINITY;
    const updates = caseWrites(e.state).filter((j) => j.seq > since && ok(j));
    return updates.length > 0
      ? pass()
      : fail(
          `the second delivery wrote no case: when GET /cases/<event_id> finds the case, take the update branch and still write it (POST /cases with the same event_id)`,
          gap('accepted POST /cases after the second delivery', requestCount(1), 0),
        );
  },
};

export const noSecondCase: Expectation = {
  stage: 'idempotency',
  text: R.noSecondCase.text,
  judge: (e) => oneCase(e, 'after the same alert came twice,'),
};

export const noSecondBlock: Expectation = {
  stage: 'idempotency',
  text: R.noSecondBlock.text,
  judge: (e) => {
    const posts = blockPosts(e.state).length;
    const active = e.state.blocklist.length;
    if (posts === 1 && active === 1) return pass();
    return fail(
      'the second delivery sent POST /blocklist again: when the case lookup finds a case that already shows the block, skip Approve and Block and only update the case',
      gaps(
        gap('POST /blocklist', `${requestCount(1)} in all`, posts),
        gap('active blocklist entries', 1, active),
      ),
    );
  },
};
