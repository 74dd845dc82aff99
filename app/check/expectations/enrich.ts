/** The Enrich stage: the identity system is asked about the alert's user, and only that user. */
import type { StageName } from '../../stages/stages.js';
import {
  approvalRequests,
  blockPosts,
  type Expectation,
  fail,
  identityPath,
  pass,
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
        );
      }
      if (e.state.notifications.length > 0) {
        return fail(
          `a valid alert made no GET ${path} but a notification: Validate seems to reject valid alerts (environment "training", all seven fields present); check its conditions`,
          `${e.state.notifications.length} notification(s)`,
        );
      }
      return fail(
        `no GET ${path} after a valid alert: connect Enrich to Validate's success branch and ask GET {mock API}/identity/ + the alert's user`,
        'no /identity request',
      );
    },
  };
}

export const identityOfTheUserOnly: Expectation = {
  stage: 'enrich',
  text: R.userOnly.text,
  judge: (e) => {
    const wrong = requests(e.state, 'GET', (p) => p.startsWith('/identity/')).filter(
      (j) => j.path !== identityPath(e.facts.user),
    );
    if (wrong.length === 0 && requests(e.state, 'GET', identityPath(e.facts.user)).length > 0) return pass();
    if (wrong.length === 0) {
      return fail(
        `an alert for user ${e.facts.user} made no GET ${identityPath(e.facts.user)}: Enrich must ask for the alert's user`,
        'no /identity request',
      );
    }
    return fail(
      `an alert for user ${e.facts.user} called ${wrong.map(show).join(', ')}: Enrich must use the alert's user field, not a fixed name or another field`,
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
      `${approvals} approval request(s), ${blocks} POST /blocklist`,
    );
  },
};
