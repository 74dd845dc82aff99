/** POST /api/approve: a trainer's decision posted to the resume URL the workflow gave. */
import { Hono } from 'hono';
import { z } from 'zod';
import { refuse } from '../../service-kit/browser-guard.js';
import { describeResume, postDecision, resumeTarget } from '../resume.js';
import type { ConsoleDeps } from './deps.js';
import { jsonBody } from './json-body.js';

const ApproveBody = z.object({
  resume_url: z.string().max(2048),
  decision: z.enum(['approve', 'reject']),
  approver: z.string().trim().min(1).max(64),
});

type ApprovalDeps = Pick<ConsoleDeps, 'feed' | 'n8nUrl' | 'n8nPublicUrl' | 'resumeRetryMs' | 'fetchImpl'>;

/**
 * POST /api/approve: a trainer's decision on an approval request, posted to the resume URL the workflow
 * gave (only one on the workflow platform), recorded beside the request the page shows.
 */
export function approvalRoutes(deps: ApprovalDeps): Hono {
  const { feed } = deps;
  return new Hono().post('/', jsonBody(ApproveBody), async (c) => {
    const b = c.req.valid('json');
    const target = resumeTarget(b.resume_url, deps.n8nPublicUrl, deps.n8nUrl);
    if (!target.ok) return refuse(c, 400, 'not_a_resume_url', `Refused: ${target.reason}.`);
    try {
      const out = await postDecision(
        target.url,
        { decision: b.decision, approver: b.approver },
        { retryForMs: deps.resumeRetryMs ?? 5000, ...(deps.fetchImpl ? { fetchImpl: deps.fetchImpl } : {}) },
      );
      feed.recordDecision(b.resume_url, {
        decision: b.decision,
        approver: b.approver,
        status: out.status,
        attempts: out.attempts,
        at: new Date().toISOString(),
      });
      await feed.refresh();
      return c.json({ ok: out.status < 300, ...out, message: describeResume(out.status, out.attempts) });
    } catch (err) {
      return c.json(
        { ok: false, status: 0, message: `workflow platform unreachable: ${(err as Error).message}` },
        502,
      );
    }
  });
}
