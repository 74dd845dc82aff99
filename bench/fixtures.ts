/**
 * Workflow-sized records, shared by the load runs and the memory measurement: a case as the guide's
 * workflow (app/workflow/guide) writes it for a blocked outcome, and the approval request it sends,
 * resume URL included. test/bench/fixtures.test.ts runs the workflow and holds these equal to what it
 * sends, so the benchmark's data cannot drift from what the workflow writes.
 */

import { findIdentity } from '../app/api/schemas/identities.js';

/** The directory's record of the lab's user, as the workflow's identity lookup returns it. */
const IDENTITY = findIdentity('lab-admin');

/** The alert of event `eventId`, as the workflow's webhook receives it. */
export const alert = (eventId: string) => ({
  event_id: eventId,
  event_type: 'suspicious_login',
  user: 'lab-admin',
  source_ip: '203.0.113.66',
  confidence: 92,
  environment: 'training',
  successful_login: true,
  failed_attempts: 3,
});

/** The case record of a blocked outcome (about 800 bytes of JSON). */
export const caseRecord = (eventId: string) => {
  const { failed_attempts, ...mapped } = alert(eventId);
  return {
    ...mapped,
    evidence: { alert: { ...mapped, failed_attempts }, identity: IDENTITY },
    case_action: 'create',
    final_action: 'blocked',
    verification: {
      method: 'GET /blocklist/203.0.113.66',
      blocked: true,
      entry_event_id: eventId,
      verified_at: '2026-03-01T09:00:06.000Z',
    },
    expiry: { expires_minutes: 10, expires_at: '2026-03-01T09:10:05.000Z' },
    rollback: {
      method: 'DELETE /blocklist/203.0.113.66',
      workflow: 'Suspicious Login Rollback',
      status: 'available',
    },
    approver: 'soc-lead',
    decision: 'approval_requested',
    result: 'blocked',
  };
};

/** The approval request the workflow sends, with the signed resume URL of its Wait node. */
export const approvalNotification = (eventId: string, i = 0) => ({
  channel: 'approval',
  recipient: 'soc-approver',
  severity: 'high',
  expires_minutes: 10,
  subject: 'Approval requested: block 203.0.113.66',
  message:
    'Suspicious login of lab-admin from 203.0.113.66, confidence 92. Block the address for 10 minutes?',
  event_id: eventId,
  source_ip: '203.0.113.66',
  resume_url: `http://n8n:5678/webhook-waiting/${1000 + i}?signature=${'0123456789abcdef'.repeat(4)}`,
});

/** A case at the per-case limit: its JSON is just under 64 KiB. */
export const largestCase = (eventId: string) => {
  const base = { ...caseRecord(eventId), padding: '' };
  // Room for what the service adds (created_at, updated_at, revision), so updates stay within the limit.
  const room = 64 * 1024 - JSON.stringify(base).length - 160;
  return { ...base, padding: 'x'.repeat(room) };
};
