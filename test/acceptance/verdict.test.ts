import { describe, expect, it } from 'vitest';
import { CASE_NAMES, type CaseName, judge } from '../../app/acceptance/verdict.js';
import type { StateReading } from '../../app/mock-api-client/readings.js';
import {
  blockedCase,
  entry,
  FACTS,
  goodState,
  journal,
  notice,
  unactionedCase,
  withRequests,
} from './state-builders.js';

/** The names of the checks that fail, so each test says which rule caught the spoiled state. */
function failures(name: CaseName, state: StateReading): string[] {
  return judge(name, state, FACTS)
    .checks.filter((c) => !c.pass)
    .map((c) => c.check);
}

function expectFailure(name: CaseName, state: StateReading, check: RegExp): void {
  const verdict = judge(name, state, FACTS);
  expect(verdict.pass).toBe(false);
  expect(failures(name, state)).toEqual(expect.arrayContaining([expect.stringMatching(check)]));
  expect(verdict.observed).toContain('FAILED');
}

describe('verdicts on the state a correct workflow leaves', () => {
  it.each(CASE_NAMES)('%s passes', (name) => {
    const verdict = judge(name, goodState(name), FACTS);
    expect(failures(name, goodState(name))).toEqual([]);
    expect(verdict.pass).toBe(true);
    expect(verdict.observed).not.toContain('FAILED');
  });

  it('an empty state (nothing happened) fails every case', () => {
    const empty = goodState('invalid_input');
    const nothing: StateReading = { ...empty, notifications: [], journal: journal(['POST', '/reset', 200]) };
    for (const name of CASE_NAMES) expect(judge(name, nothing, FACTS).pass, name).toBe(false);
  });
});

describe('positive', () => {
  it('fails on a second block request', () => {
    expectFailure(
      'positive',
      withRequests(goodState('positive'), ['POST', '/blocklist', 409]),
      /POST \/blocklist/,
    );
  });

  it('fails when the case is missing', () => {
    expectFailure('positive', { ...goodState('positive'), cases: [] }, /exactly 1 case/);
  });

  it('fails on a second case, even for another event', () => {
    const state = goodState('positive');
    expectFailure(
      'positive',
      { ...state, cases: [...state.cases, blockedCase({ event_id: 'evt-other' })] },
      /exactly 1 case/,
    );
  });

  it('fails when the approver is not recorded', () => {
    expectFailure(
      'positive',
      { ...goodState('positive'), cases: [blockedCase({ approver: null })] },
      /approver/,
    );
  });

  it('fails without an approval request', () => {
    expectFailure('positive', { ...goodState('positive'), notifications: [] }, /approval notification/);
  });

  it('fails when the entry belongs to another event or is not 10 minutes', () => {
    expectFailure(
      'positive',
      { ...goodState('positive'), blocklist: [entry({ event_id: 'evt-other' })] },
      /active entry/,
    );
    expectFailure(
      'positive',
      { ...goodState('positive'), blocklist: [entry({ expires_minutes: 60 })] },
      /active entry/,
    );
  });

  it('fails when the case does not show the verification or the expiry', () => {
    const unverified = blockedCase({ verification: { method: 'none', blocked: false } });
    expectFailure('positive', { ...goodState('positive'), cases: [unverified] }, /verification\.blocked/);
    expectFailure('positive', { ...goodState('positive'), cases: [blockedCase({ expiry: null })] }, /expiry/);
  });

  it('fails when the evidence carries another identity', () => {
    const other = blockedCase({ evidence: { identity: { user: 'alice.analyst' } } });
    expectFailure('positive', { ...goodState('positive'), cases: [other] }, /evidence\.identity\.user/);
  });
});

describe('invalid_input', () => {
  it('fails on an identity request after invalid input', () => {
    expectFailure(
      'invalid_input',
      withRequests(goodState('invalid_input'), ['GET', '/identity/lab-admin', 200]),
      /\/identity/,
    );
  });

  it('fails on a case lookup or a blocklist lookup', () => {
    expectFailure(
      'invalid_input',
      withRequests(goodState('invalid_input'), ['GET', '/cases/evt-test-1', 404]),
      /\/cases/,
    );
    expectFailure(
      'invalid_input',
      withRequests(goodState('invalid_input'), ['GET', '/blocklist/203.0.113.66', 200]),
      /\/blocklist requests/,
    );
  });

  it('fails when a case was written', () => {
    expectFailure('invalid_input', { ...goodState('invalid_input'), cases: [unactionedCase()] }, /cases/);
  });

  it('fails when the validation error is not recorded, or does not name the missing field', () => {
    expectFailure(
      'invalid_input',
      { ...goodState('invalid_input'), notifications: [] },
      /validation notification/,
    );
    const vague = notice('validation', { errors: ['bad alert'], message: 'bad alert' });
    expectFailure(
      'invalid_input',
      { ...goodState('invalid_input'), notifications: [vague] },
      /names source_ip/,
    );
  });

  it('fails on two validation notifications', () => {
    const state = goodState('invalid_input');
    expectFailure(
      'invalid_input',
      { ...state, notifications: [...state.notifications, ...state.notifications] },
      /validation/,
    );
  });
});

describe('low_confidence', () => {
  it('fails when approval was requested', () => {
    expectFailure(
      'low_confidence',
      { ...goodState('low_confidence'), notifications: [notice('approval')] },
      /approval/,
    );
  });

  it('fails on a block request, even a refused one', () => {
    expectFailure(
      'low_confidence',
      withRequests(goodState('low_confidence'), ['POST', '/blocklist', 403]),
      /blocklist writes/,
    );
  });

  it('fails when the enrichment is not recorded', () => {
    const bare = unactionedCase({ result: 'below_threshold', evidence: { alert: {} } });
    expectFailure('low_confidence', { ...goodState('low_confidence'), cases: [bare] }, /identity/);
  });

  it('fails when the case says blocked', () => {
    expectFailure(
      'low_confidence',
      { ...goodState('low_confidence'), cases: [blockedCase()] },
      /final_action/,
    );
  });
});

describe('connector_failure', () => {
  it('fails when the block was repeated', () => {
    const state = goodState('connector_failure');
    expectFailure('connector_failure', withRequests(state, ['POST', '/blocklist', 409]), /POST \/blocklist/);
  });

  it('fails without the failed write, or without a successful write after it', () => {
    const state = goodState('connector_failure');
    const neverFailed = state.journal.filter((j) => j.status !== 503);
    expectFailure('connector_failure', { ...state, journal: neverFailed }, /503, then a 2xx/);
    const neverRecovered = state.journal.filter((j) => !(j.path === '/cases' && j.status === 201));
    expectFailure('connector_failure', { ...state, journal: neverRecovered }, /503, then a 2xx/);
  });

  it('fails when the owner was not told', () => {
    const state = goodState('connector_failure');
    expectFailure(
      'connector_failure',
      { ...state, notifications: [notice('approval')] },
      /owner notification/,
    );
  });

  it('fails when Record was written again before the owner was told', () => {
    const state = goodState('connector_failure');
    // The owner's notice moved after the second write: the same requests, in another order.
    const told = state.journal.findLast((j) => j.path === '/notify');
    const last = Math.max(...state.journal.map((j) => j.seq));
    const journal = state.journal.map((j) => (j === told ? { ...j, seq: last + 1 } : j));
    expectFailure('connector_failure', { ...state, journal }, /owner told between/);
  });

  it('fails when the case lookup was not healthy', () => {
    const state = goodState('connector_failure');
    const journalWithout404 = state.journal.map((j) => (j.status === 404 ? { ...j, status: 503 } : j));
    expectFailure('connector_failure', { ...state, journal: journalWithout404 }, /lookup answered 404/);
  });
});

describe('duplicate_delivery', () => {
  it('fails on a second case', () => {
    const state = goodState('duplicate_delivery');
    expectFailure(
      'duplicate_delivery',
      { ...state, cases: [...state.cases, blockedCase({ event_id: `${FACTS.eventId}-2` })] },
      /exactly 1 case/,
    );
  });

  it('fails on a second block request', () => {
    expectFailure(
      'duplicate_delivery',
      withRequests(goodState('duplicate_delivery'), ['POST', '/blocklist', 409]),
      /POST/,
    );
  });

  it('fails when the case was not updated', () => {
    expectFailure(
      'duplicate_delivery',
      { ...goodState('duplicate_delivery'), cases: [blockedCase()] },
      /revision/,
    );
  });

  it('fails when the second delivery asked for approval again', () => {
    const twice = [notice('approval'), notice('approval', { id: 'ntf-2' })];
    expectFailure(
      'duplicate_delivery',
      { ...goodState('duplicate_delivery'), notifications: twice },
      /approval/,
    );
  });
});

describe('rollback', () => {
  it('fails while the address is still blocked', () => {
    expectFailure('rollback', { ...goodState('rollback'), blocklist: [entry()] }, /active blocklist entries/);
  });

  it('fails when the entry expired instead of being removed', () => {
    const expired = [{ ...entry(), removed_at: 'x', removed_reason: 'expired' }];
    expectFailure('rollback', { ...goodState('rollback'), blocklist_history: expired }, /unblocked/);
  });

  it('fails without the recovery time', () => {
    const noTime = blockedCase({ rollback: { status: 'completed' }, revision: 2 });
    expectFailure('rollback', { ...goodState('rollback'), cases: [noTime] }, /recovery_seconds/);
  });
});

describe('approval_rejected and approval_timed_out', () => {
  it('a rejection that still blocked fails', () => {
    const state = withRequests(goodState('approval_rejected'), ['POST', '/blocklist', 201]);
    expectFailure('approval_rejected', { ...state, blocklist: [entry()] }, /blocklist/);
  });

  it('a rejection without the approver fails', () => {
    const anonymous = unactionedCase({ result: 'approval_rejected' });
    expectFailure('approval_rejected', { ...goodState('approval_rejected'), cases: [anonymous] }, /approver/);
  });

  it('a timeout recorded as a rejection fails, and so does a timeout that blocked', () => {
    const mislabelled = unactionedCase({ result: 'approval_rejected' });
    expectFailure(
      'approval_timed_out',
      { ...goodState('approval_timed_out'), cases: [mislabelled] },
      /approval_timed_out/,
    );
    expectFailure(
      'approval_timed_out',
      withRequests(goodState('approval_timed_out'), ['POST', '/blocklist', 201]),
      /blocklist/,
    );
  });

  it('a lookup of the blocklist is not containment', () => {
    const state = withRequests(goodState('approval_rejected'), ['GET', '/blocklist/203.0.113.66', 200]);
    expect(judge('approval_rejected', state, FACTS).pass).toBe(true);
  });
});
