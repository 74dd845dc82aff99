/** The Block stage: one temporary block of the exact entry, verified. */
import {
  blockPath,
  blockPosts,
  counted,
  type Expectation,
  fail,
  gap,
  gaps,
  ok,
  pass,
  requestCount,
  requests,
  shown,
  WORDS,
} from './kit.js';

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
        gap('POST /blocklist', requestCount(1), 0),
      );
    }
    if (posts.length === 1) {
      return fail(
        `POST /blocklist was refused (${posts[0]?.status}): send JSON {"ip": <source_ip>, "event_id": <event_id>, "expires_minutes": 10} (the mock API's names, GET /openapi.json)`,
        gap('POST /blocklist', 'a 2xx answer', posts[0]?.status ?? 'none'),
      );
    }
    return fail(
      `POST /blocklist was sent ${posts.length} times: send it once`,
      gap('POST /blocklist', requestCount(1), counted(posts)),
    );
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
        gap(
          'blocklist entries',
          `1 (${e.facts.sourceIp})`,
          entries.length === 0 ? 0 : `${entries.length} (${entries.map((b) => b.ip).join(', ')})`,
        ),
      );
    }
    const wanted = { ip: e.facts.sourceIp, event_id: e.facts.eventId, expires_minutes: 10 } as const;
    const wrong = (['ip', 'event_id', 'expires_minutes'] as const).filter((k) => entry[k] !== wanted[k]);
    const [first, ...rest] = wrong.map((k) =>
      gap(`blocklist ${entry.ip} ${k}`, shown(wanted[k]), shown(entry[k])),
    );
    return first === undefined
      ? pass()
      : fail(
          `the block has ${wrong.map((k) => `${k} ${entry[k]}`).join(', ')}: send the alert's source_ip and event_id, and expires_minutes 10`,
          gaps(first, ...rest),
        );
  },
};

export const blockVerified: Expectation = {
  stage: 'block',
  text: R.verified.text,
  judge: (e) => {
    const post = blockPosts(e.state).find(ok);
    if (post === undefined) {
      return fail(
        'no accepted POST /blocklist (see above)',
        gap('accepted POST /blocklist', requestCount(1), 0),
      );
    }
    const lookups = requests(e.state, 'GET', blockPath(e.facts)).filter((j) => j.seq > post.seq && ok(j));
    return lookups.length > 0
      ? pass()
      : fail(
          `after POST /blocklist nothing asked GET ${blockPath(e.facts)}: verify the block there (blocked must be true, for this event) before recording it`,
          gap(`GET ${blockPath(e.facts)} after POST /blocklist`, requestCount(1), 0),
        );
  },
};
