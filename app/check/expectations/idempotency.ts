/** Idempotency: the same alert twice updates one case, with no second block. */
import { blockPosts, caseWrites, type Expectation, fail, ok, oneCase, pass, WORDS } from './kit.js';

const R = WORDS.requires.idempotency;

export const firstRunDone = (stage: 'idempotency' | 'rollback'): Expectation => ({
  stage,
  text: WORDS.requires[stage].firstRunDone.text,
  judge: (e) =>
    e.marks.firstRunDone === true
      ? pass()
      : fail(
          'the first delivery never produced a block and a case after it: pass the block and record stages first',
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
          'no POST /cases after the second delivery',
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
    const posts = blockPosts(e.state);
    if (posts.length === 1 && e.state.blocklist.length === 1) return pass();
    return fail(
      'the second delivery sent POST /blocklist again: when the case lookup finds a case that already shows the block, skip Approve and Block and only update the case',
      `${posts.length} POST /blocklist, ${e.state.blocklist.length} active`,
    );
  },
};
