/** The Enrich stage: the identity system is asked about the alert's user, and only that user. */
import type { StageName } from '../../stages/stages.js';
import {
  approvalRequests,
  blockPosts,
  counted,
  type Expectation,
  fail,
  gap,
  identityPath,
  pass,
  requestCount,
  requests,
  show,
  WORDS,
} from './kit.js';

const R = WORDS.requires.enrich;

export function identityAsked(stage: StageName): Expectation {
  return {
    stage,
    text: R.identityAsked.text,
    judge: (e) => {
      const path = identityPath(e.facts.user);
      if (requests(e.state, 'GET', path).length > 0) return pass();
      const asked = requests(e.state, 'GET', (p) => p.startsWith('/identity/'));
      if (asked.length > 0) {
        return fail(
          `the alert's user is ${e.facts.user}, but Enrich asked ${asked.map(show).join(', ')}: build the path from the alert's user field`,
          gap(`GET ${path}`, requestCount(1), `0 (asked ${asked.map(show).join(', ')})`),
        );
      }
      if (e.state.notifications.length > 0) {
        return fail(
          `a valid alert made no GET ${path} but a notification: Validate seems to reject valid alerts (environment "training", all seven fields present); check its conditions`,
          gap(`GET ${path}`, requestCount(1), `0 (${e.state.notifications.length} notification(s) instead)`),
        );
      }
      return fail(
        `no GET ${path} after a valid alert: connect Enrich to Validate's success branch and ask GET {mock API}/identity/ + the alert's user`,
        gap(`GET ${path}`, requestCount(1), 0),
      );
    },
  };
}

export const identityOfTheUserOnly: Expectation = {
  stage: 'enrich',
  text: R.userOnly.text,
  judge: (e) => {
    const path = identityPath(e.facts.user);
    const wrong = requests(e.state, 'GET', (p) => p.startsWith('/identity/')).filter((j) => j.path !== path);
    const right = requests(e.state, 'GET', path).length;
    if (wrong.length === 0 && right > 0) return pass();
    if (wrong.length === 0) {
      return fail(
        `an alert for user ${e.facts.user} made no GET ${path}: Enrich must ask for the alert's user`,
        gap(`GET ${path}`, requestCount(1), 0),
      );
    }
    return fail(
      `an alert for user ${e.facts.user} called ${wrong.map(show).join(', ')}: Enrich must use the alert's user field, not a fixed name or another field`,
      right === 0
        ? gap(`GET ${path}`, requestCount(1), `0 (asked ${wrong.map(show).join(', ')})`)
        : gap(`GET /identity/ of users other than ${e.facts.user}`, requestCount(0), counted(wrong)),
    );
  },
};

export const unknownIdentityStops: Expectation = {
  stage: 'enrich',
  text: R.unknownStops.text,
  judge: (e) => {
    const approvals = approvalRequests(e.state).length;
    const blocks = blockPosts(e.state).length;
    if (approvals === 0 && blocks === 0) return pass();
    return fail(
      `an alert for ${e.facts.user}, whom the identity system does not know, still went on to ${approvals > 0 ? 'ask for approval' : 'POST /blocklist'}: ` +
        "after GET /identity, stop the run (and record why) unless it answered 200 with the alert's user",
      gap(
        `approval requests and POST /blocklist after GET ${identityPath(e.facts.user)} (unknown user)`,
        0,
        `${approvals} approval request(s), ${blocks} POST /blocklist`,
      ),
    );
  },
};
