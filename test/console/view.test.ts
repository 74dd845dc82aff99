import { describe, expect, it } from 'vitest';
import type { State } from '../../app/api/schemas/state.js';
import { approvalsOf, type Decision } from '../../app/console/view.js';

const at = (s: number) => new Date(Date.UTC(2026, 10, 23, 4, 0, s)).toISOString();
const request = (id: number, eventId: string, s: number) => ({
  id: `ntf-00000${id}`,
  status: 'accepted' as const,
  accepted_at: at(s),
  message: 'approve?',
  channel: 'approval',
  event_id: eventId,
  subject: `Approval requested: ${eventId}`,
  resume_url: `http://127.0.0.1:5678/webhook-waiting/${id}?signature=ab`,
});
const state = (over: Partial<State>): State => ({
  case_mode: 'healthy',
  since: at(0),
  now: at(30),
  cases: [],
  notifications: [],
  blocklist: [],
  blocklist_history: [],
  journal: [],
  ...over,
});
const decision = (status: number): Decision => ({
  decision: 'approve',
  approver: 'ann',
  status,
  attempts: 1,
  at: at(20),
});

describe('approval requests in the view', () => {
  it('pending, answered once n8n took the decision, closed once the case was written after the request', () => {
    const s = state({
      notifications: [
        request(1, 'evt-a', 1),
        { id: 'ntf-000002', status: 'accepted', accepted_at: at(2), message: 'owner told', channel: 'email' },
        request(3, 'evt-b', 3),
        request(4, 'evt-c', 4),
        request(5, 'evt-d', 5),
      ],
      cases: [
        // evt-a written after its request: closed. evt-d written before its request (a re-delivery): not.
        { event_id: 'evt-a', created_at: at(9), updated_at: at(9), revision: 1 },
        { event_id: 'evt-d', created_at: at(0), updated_at: at(0), revision: 1 },
      ],
    });
    const decisions = new Map([
      ['http://127.0.0.1:5678/webhook-waiting/3?signature=ab', decision(200)],
      ['http://127.0.0.1:5678/webhook-waiting/4?signature=ab', decision(409)],
    ]);
    expect(approvalsOf(s, decisions).map((a) => [a.event_id, a.status])).toEqual([
      ['evt-d', 'pending'],
      ['evt-c', 'pending'],
      ['evt-b', 'answered'],
      ['evt-a', 'closed'],
    ]);
  });

  it('ignores a notification without a resume URL, whatever its channel', () => {
    const { resume_url: _, ...noUrl } = request(1, 'evt-a', 1);
    const trigger = { ...noUrl, id: 'ntf-2', link: 'http://127.0.0.1:5678/webhook/suspicious-login' };
    expect(approvalsOf(state({ notifications: [noUrl, trigger] }), new Map())).toEqual([]);
  });

  it("shows a trainee's own request: any channel or none, the resume URL in any field or sentence", () => {
    const url = 'http://127.0.0.1:5678/webhook-waiting/417?signature=9f2c';
    const own = (id: string, fields: Record<string, unknown>) => ({
      id,
      status: 'accepted' as const,
      accepted_at: at(1),
      message: 'Block 203.0.113.66?',
      ...fields,
    });
    const views = approvalsOf(
      state({
        notifications: [
          own('ntf-1', { channel: 'email', event_id: 'evt-a', approve_link: url }),
          own('ntf-2', { message: `Approve: ${url}.`, details: { event: 'evt-b' } }),
          own('ntf-3', { links: [{ href: url }], subject: 'Block?', event_id: 42 }),
        ],
      }),
      new Map(),
    );
    expect(views.map((v) => [v.notification_id, v.resume_url, v.event_id, v.subject])).toEqual([
      ['ntf-3', url, null, 'Block?'],
      ['ntf-2', url, null, 'Approval requested'],
      ['ntf-1', url, 'evt-a', 'Approval requested'],
    ]);
    expect(views.every((v) => v.status === 'pending')).toBe(true);
  });
});
