/**
 * The benchmark's records are what the workflow writes: the case and the approval request equal, field
 * for field, what the guide's workflow (docker/workflows/suspicious-login-response.json) sends when it runs
 * in the simulator on the mock API, approved; and the service accepts them, the largest case included.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWorkflow } from '../../app/simulator/engine.js';
import { alert, approvalNotification, caseRecord, largestCase } from '../../bench/fixtures.js';
import { makeTestApp } from '../helpers/test-app.js';
import { readExport, WORKFLOW_DIR } from '../workflow/checks.js';
import { freshMockApi, mockApiIo } from '../workflow/offline-check.js';

const response = readExport(join(WORKFLOW_DIR, 'suspicious-login-response.json'));

/** The bodies the workflow POSTs on a run approved by soc-lead: the mock API's clock at 09:00:05, its own a second on. */
async function posted(eventId: string): Promise<{ path: string; body: unknown }[]> {
  const api = freshMockApi(() => Date.parse('2026-03-01T09:00:05.000Z'));
  const bodies: { path: string; body: unknown }[] = [];
  const io = mockApiIo(api, {
    now: Date.parse('2026-03-01T09:00:06.000Z'),
    resume: async () => ({ headers: {}, body: { decision: 'approve', approver: 'soc-lead' } }),
    afterRequest: async (call, path) => {
      if (call.method === 'POST') bodies.push({ path, body: call.body });
    },
  });
  const run = await runWorkflow(response, { headers: {}, body: alert(eventId) }, io);
  expect(run).toMatchObject({ status: 'success', error: null });
  return bodies;
}

describe('bench/fixtures.ts', () => {
  it('holds the case and the approval request the guide’s workflow sends for a blocked outcome', async () => {
    const bodies = await posted('evt-7');
    expect(bodies.map((b) => b.path)).toEqual(['/notify', '/blocklist', '/cases']);
    expect(bodies[2]?.body).toEqual(caseRecord('evt-7'));
    // The resume URL is the run's own: the fixture's is n8n's shape, signed.
    const { resume_url, ...request } = approvalNotification('evt-7');
    expect(bodies[0]?.body).toEqual({ ...request, resume_url: expect.stringContaining('/webhook-waiting/') });
    expect(resume_url).toMatch(/^http:\/\/n8n:5678\/webhook-waiting\/\d+\?signature=[0-9a-f]{64}$/);
  });

  it('control: the workflow’s case follows the event id, and a fixture one field off is caught', async () => {
    const [, , record] = await posted('evt-8');
    expect(record?.body).not.toEqual(caseRecord('evt-7'));
    expect(record?.body).not.toEqual({ ...caseRecord('evt-8'), approver: 'someone-else' });
    expect(record?.body).toEqual(caseRecord('evt-8'));
  });

  it('is accepted by the service: a workflow case, an approval notification, the largest case', async () => {
    const t = makeTestApp();
    expect((await t.post('/cases', caseRecord('evt-1'))).status).toBe(201);
    expect((await t.post('/notify', approvalNotification('evt-1'))).status).toBe(202);
    const largest = largestCase('evt-2');
    expect(JSON.stringify(largest).length).toBeGreaterThan(60_000);
    expect((await t.post('/cases', largest)).status).toBe(201);
    expect(JSON.stringify(t.store.cases.find('evt-2')).length).toBeLessThanOrEqual(64 * 1024);
  });
});
