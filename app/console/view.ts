/** What the console page renders: the mock API's state plus the approvals and decisions the console knows. */
import type { Health } from '../api/schemas/health.js';
import type { State } from '../api/schemas/state.js';
import { approvalRequestOf } from '../judging/approval-request.js';

/** A decision the console posted to a resume URL, and what the workflow platform answered. */
export interface Decision {
  decision: 'approve' | 'reject';
  approver: string;
  status: number;
  attempts: number;
  at: string;
}

export interface ApprovalRequest {
  notification_id: string;
  event_id: string | null;
  subject: string;
  message: string;
  resume_url: string;
  accepted_at: string;
  /** pending: nobody answered yet; answered: the console posted a decision; closed: the case is written. */
  status: 'pending' | 'answered' | 'closed';
  decision: Decision | null;
}

/** What the page renders: the mock API's state plus what the console knows about it. */
export interface ConsoleView {
  /** Bumped whenever anything below changes (SSE sends, clients compare). */
  version: number;
  source: string;
  error: string | null;
  /** Service clock minus real clock, in ms: the page counts down on Date.now() + this. */
  service_offset_ms: number;
  state: State | null;
  health: Health | null;
  approvals: ApprovalRequest[];
  /** The stage checker's last report (reports/check-last.json), read loosely, or null. */
  check: unknown;
}

/**
 * The approval requests among the notifications (app/judging/approval-request.ts: any notification carrying a
 * resume URL), newest first. A request is closed once its event's case was written after it (the workflow
 * records the case after the decision or the time limit).
 */
export function approvalsOf(state: State, decisions: ReadonlyMap<string, Decision>): ApprovalRequest[] {
  const out: ApprovalRequest[] = [];
  for (const n of state.notifications) {
    const request = approvalRequestOf(n);
    if (request === null) continue;
    const eventId = request.event_id;
    const closed =
      eventId !== null && state.cases.some((c) => c.event_id === eventId && c.updated_at >= n.accepted_at);
    const decision = decisions.get(request.resume_url) ?? null;
    out.push({
      notification_id: n.id,
      event_id: eventId,
      subject: request.subject,
      message: request.message,
      resume_url: request.resume_url,
      accepted_at: n.accepted_at,
      status: closed ? 'closed' : decision && decision.status < 300 ? 'answered' : 'pending',
      decision,
    });
  }
  return out.reverse();
}
