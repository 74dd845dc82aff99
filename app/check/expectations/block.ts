/** The Block stage: one temporary block of the exact entry, verified. */
import { blockPath, blockPosts, type Expectation, fail, ok, pass, requests, show, WORDS } from './kit.js';

const R = WORDS.requires.block;

export const oneBlockAfterApproval: Expectation = {
  stage: 'block',
  text: R.oneBlock.text,
  judge: (e) => {
    const posts = blockPosts(e.state);
    if (posts.length === 1 && posts[0] !== undefined && ok(posts[0])) return pass();
    if (posts.length === 0) {
      return fail(
        `no POST /blocklist after the approver approved: connect Block to the approved branch (the checker's approval body is ${JSON.stringify(e.mapping.approval.approve)}; give yours with a mapping)`,
        'no POST /blocklist',
      );
    }
    if (posts.length === 1) {
      return fail(
        `POST /blocklist was refused (${posts[0]?.status}): send JSON {"ip": <source_ip>, "event_id": <event_id>, "expires_minutes": 10} (the mock API's names, GET /openapi.json)`,
      );
    }
    return fail(`POST /blocklist was sent ${posts.length} times: send it once`, posts.map(show).join(', '));
  },
};

export const exactEntry: Expectation = {
  stage: 'block',
  text: R.exactEntry.text,
  judge: (e) => {
    const entries = e.state.blocklist;
    const entry = entries[0];
    if (entries.length !== 1 || entry === undefined) {
      return fail(
        'there must be exactly one active block, for this alert (see the line above)',
        `${entries.length} entries`,
      );
    }
    const wrong: string[] = [];
    if (entry.ip !== e.facts.sourceIp) wrong.push(`address ${entry.ip}`);
    if (entry.event_id !== e.facts.eventId) wrong.push(`event id ${entry.event_id}`);
    if (entry.expires_minutes !== 10) wrong.push(`expires_minutes ${entry.expires_minutes}`);
    return wrong.length === 0
      ? pass()
      : fail(
          `the block has ${wrong.join(', ')}: send the alert's source_ip and event_id, and expires_minutes 10`,
          wrong.join(', '),
        );
  },
};

export const blockVerified: Expectation = {
  stage: 'block',
  text: R.verified.text,
  judge: (e) => {
    const post = blockPosts(e.state).find(ok);
    if (post === undefined) return fail('no accepted POST /blocklist (see above)');
    const lookups = requests(e.state, 'GET', blockPath(e.facts)).filter((j) => j.seq > post.seq && ok(j));
    return lookups.length > 0
      ? pass()
      : fail(
          `after POST /blocklist nothing asked GET ${blockPath(e.facts)}: verify the block there (blocked must be true, for this event) before recording it`,
          'no follow-up lookup',
        );
  },
};
