/**
 * Hand-built destination states for the verdict tests: for each case a state that a correct workflow
 * leaves behind, so a test can spoil one detail and expect exactly that verdict to fail.
 */

import type { CaseName } from '../../app/acceptance/verdict.js';
import type { Facts } from '../../app/judging/questions.js';
import type { StateReading } from '../../app/mock-api-client/readings.js';

export const FACTS: Facts = {
  eventId: 'evt-test-1',
  sourceIp: '203.0.113.66',
  user: 'lab-admin',
  approver: 'acceptance-approver',
};

const AT = '2026-11-21T12:00:00.000Z';
const EXPIRES = '2026-11-21T12:10:00.000Z';
const IDENTITY = { user: 'lab-admin', role: 'administrator', critical: true };

type Request = [method: string, path: string, status: number];

export function journal(...requests: Request[]): StateReading['journal'] {
  return requests.map(([method, path, status], index) => ({ seq: index + 1, at: AT, method, path, status }));
}

export function entry(overrides: Record<string, unknown> = {}) {
  return {
    ip: FACTS.sourceIp,
    event_id: FACTS.eventId,
    expires_minutes: 10,
    created_at: AT,
    expires_at: EXPIRES,
    ...overrides,
  };
}

export function notice(channel: string, extra: Record<string, unknown> = {}) {
  return {
    id: `ntf-${channel}`,
    status: 'accepted',
    channel,
    event_id: FACTS.eventId,
    message: 'm',
    ...extra,
  };
}

export function blockedCase(overrides: Record<string, unknown> = {}) {
  return {
    event_id: FACTS.eventId,
    source_ip: FACTS.sourceIp,
    user: FACTS.user,
    evidence: { alert: {}, identity: IDENTITY },
    approver: FACTS.approver,
    decision: 'approval_requested',
    result: 'blocked',
    final_action: 'blocked',
    verification: { method: 'GET /blocklist/203.0.113.66', blocked: true, entry_event_id: FACTS.eventId },
    expiry: { expires_minutes: 10, expires_at: EXPIRES },
    rollback: { method: 'DELETE /blocklist/203.0.113.66', status: 'available' },
    case_action: 'create',
    created_at: AT,
    updated_at: AT,
    revision: 1,
    ...overrides,
  };
}

export function unactionedCase(overrides: Record<string, unknown> = {}) {
  return blockedCase({
    approver: null,
    final_action: 'none',
    verification: { method: 'none', blocked: false },
    expiry: null,
    rollback: null,
    ...overrides,
  });
}

function state(parts: Partial<StateReading>): StateReading {
  return {
    case_mode: 'healthy',
    cases: [],
    notifications: [],
    blocklist: [],
    blocklist_history: [],
    journal: journal(['POST', '/reset', 200]),
    ...parts,
  };
}

const CASE_PATH = `/cases/${FACTS.eventId}`;
const BLOCK_PATH = `/blocklist/${FACTS.sourceIp}`;
const POSITIVE_JOURNAL: Request[] = [
  ['POST', '/reset', 200],
  ['GET', '/identity/lab-admin', 200],
  ['GET', CASE_PATH, 404],
  ['POST', '/notify', 202],
  ['POST', '/blocklist', 201],
  ['GET', BLOCK_PATH, 200],
  ['POST', '/cases', 201],
];

/** What a correct workflow leaves behind for each case. */
export function goodState(name: CaseName): StateReading {
  switch (name) {
    case 'positive':
      return state({
        cases: [blockedCase()],
        notifications: [notice('approval')],
        blocklist: [entry()],
        journal: journal(...POSITIVE_JOURNAL),
      });
    case 'invalid_input':
      return state({
        notifications: [
          notice('validation', { errors: ['source_ip is required'], message: 'source_ip is required' }),
        ],
        journal: journal(['POST', '/reset', 200], ['POST', '/notify', 202]),
      });
    case 'low_confidence':
      return state({
        cases: [unactionedCase({ result: 'below_threshold', decision: 'below_threshold' })],
        journal: journal(
          ['POST', '/reset', 200],
          ['GET', '/identity/lab-admin', 200],
          ['GET', CASE_PATH, 404],
          ['POST', '/cases', 201],
        ),
      });
    case 'connector_failure':
      return state({
        cases: [blockedCase()],
        notifications: [notice('approval'), notice('owner', { pending: 'record' })],
        blocklist: [entry()],
        journal: journal(
          ['POST', '/reset', 200],
          ['POST', '/control/case-mode', 200],
          ['GET', '/identity/lab-admin', 200],
          ['GET', CASE_PATH, 404],
          ['POST', '/notify', 202],
          ['POST', '/blocklist', 201],
          ['GET', BLOCK_PATH, 200],
          ['POST', '/cases', 503],
          ['POST', '/notify', 202],
          ['POST', '/cases', 201],
        ),
      });
    case 'duplicate_delivery':
      return state({
        cases: [blockedCase({ result: 'duplicate_delivery', case_action: 'update', revision: 2 })],
        notifications: [notice('approval')],
        blocklist: [entry()],
        journal: journal(
          ...POSITIVE_JOURNAL,
          ['GET', '/identity/lab-admin', 200],
          ['GET', CASE_PATH, 200],
          ['POST', '/cases', 200],
        ),
      });
    case 'rollback':
      return state({
        cases: [
          blockedCase({
            final_action: 'rolled_back',
            rollback: { status: 'completed', verified_absent: true, recovery_seconds: 0.012 },
            revision: 2,
          }),
        ],
        notifications: [notice('approval')],
        blocklist_history: [{ ...entry(), removed_at: AT, removed_reason: 'unblocked' }],
        journal: journal(
          ...POSITIVE_JOURNAL,
          ['GET', CASE_PATH, 200],
          ['DELETE', BLOCK_PATH, 200],
          ['GET', BLOCK_PATH, 200],
          ['POST', '/cases', 200],
        ),
      });
    case 'approval_rejected':
      return state({
        cases: [unactionedCase({ approver: FACTS.approver, result: 'approval_rejected' })],
        notifications: [notice('approval')],
        journal: journal(
          ['POST', '/reset', 200],
          ['GET', '/identity/lab-admin', 200],
          ['GET', CASE_PATH, 404],
          ['POST', '/notify', 202],
          ['POST', '/cases', 201],
        ),
      });
    case 'approval_timed_out':
      return state({
        cases: [unactionedCase({ result: 'approval_timed_out' })],
        notifications: [notice('approval')],
        journal: journal(
          ['POST', '/reset', 200],
          ['GET', '/identity/lab-admin', 200],
          ['GET', CASE_PATH, 404],
          ['POST', '/notify', 202],
          ['POST', '/cases', 201],
        ),
      });
  }
}

/** Appends requests to a state's journal, numbering on. */
export function withRequests(base: StateReading, ...requests: Request[]): StateReading {
  const last = base.journal.at(-1)?.seq ?? 0;
  return {
    ...base,
    journal: [
      ...base.journal,
      ...requests.map(([method, path, status], index) => ({
        seq: last + index + 1,
        at: AT,
        method,
        path,
        status,
      })),
    ],
  };
}
