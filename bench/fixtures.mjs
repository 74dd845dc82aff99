/** Shared by the load generator and the memory measurement, so both store the same records. */

/** A workflow's case record, close to what the reference workflow writes (about 380 bytes of JSON). */
export const caseRecord = (eventId) => ({
  event_id: eventId,
  evidence: {
    alert: { user: 'lab-admin', source_ip: '203.0.113.66', rule: 'impossible-travel', severity: 'high' },
    identity: { user: 'lab-admin', role: 'administrator', critical: true },
  },
  approver: null,
  result: 'pending_approval',
  final_action: 'none',
  verification: { blocked: false, checked_at: null },
  expiry: { expires_minutes: 30 },
  rollback: { needed: false },
});
