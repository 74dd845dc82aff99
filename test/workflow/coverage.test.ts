/**
 * What the offline check exercises of the guide's workflows: every scenario of app/judges/scenarios.ts (as
 * `check STAGE=all` plays them, ./offline-check.ts) together goes through every Code node and both outputs
 * of every If node of both workflows, except the outputs listed in NOT_BY_THE_CHECKER, each with why the
 * checker's scenarios cannot reach it. Those are then reached here with what the scenarios do not do (the
 * mock API's `failed` case mode, a second failing write, another party blocking again), so none of them is
 * dead code either.
 */
import { describe, expect, it } from 'vitest';
import { type NodeStep, runWorkflow, type SimRun } from '../../app/simulator/engine.js';
import { HEALTH_POLL_TRIES, LAB_ADDRESS } from '../../app/workflow/constants.js';
import type { N8nExport } from '../../app/workflow/export.js';
import { guideWorkflowsUpTo } from '../../app/workflow/guide/state.js';
import { alertPayload, LAB_USER } from '../../app/workflow/scenario.js';
import { ask, checkOffline, freshMockApi, type MockApi, mockApiIo } from './offline-check.js';

const [response, rollback] = guideWorkflowsUpTo('rollback');
if (response === undefined || rollback === undefined) throw new Error('the guide builds two workflows');

/** A Code node (`Workflow: Node`) or an If's output (`Workflow: Node (true)`), as a run goes through it. */
function pointOf(workflow: N8nExport, step: NodeStep): string | null {
  if (step.error !== null) return null;
  if (step.type === 'n8n-nodes-base.code') return `${workflow.name}: ${step.name}`;
  if (step.type === 'n8n-nodes-base.if')
    return `${workflow.name}: ${step.name} (${step.branch === 0 ? 'true' : 'false'})`;
  return null;
}

/** Every point of a workflow: its Code nodes, and each If node's two outputs. */
function pointsOf(workflow: N8nExport): string[] {
  return workflow.nodes.flatMap((n) => {
    if (n.type === 'n8n-nodes-base.code') return [`${workflow.name}: ${n.name}`];
    if (n.type === 'n8n-nodes-base.if')
      return [`${workflow.name}: ${n.name} (true)`, `${workflow.name}: ${n.name} (false)`];
    return [];
  });
}

const R = response.name;
/** The outputs no scenario of the checker reaches, and why. */
const NOT_BY_THE_CHECKER: Record<string, string> = {
  [`${R}: Connector failure? (false)`]:
    "the second failure of Record: the checker's only failure is fail_next_write, which fails one write",
  [`${R}: Healthy? (false)`]:
    'fail_next_write turns the connector healthy as it fails, so the first GET /health says healthy',
  [`${R}: Polls left? (true)`]: 'Polls left? runs only after an unhealthy GET /health',
  [`${R}: Polls left? (false)`]: `likewise, and only after ${HEALTH_POLL_TRIES} of them`,
  [`${rollback.name}: Absent? (false)`]:
    'the mock API takes the entry off at the DELETE (or refuses it, and the run stops at Unblock): only ' +
    'another party blocking the address again between DELETE and GET shows it still blocked',
};

describe('the checker’s scenarios, offline, go through the guide’s workflows', () => {
  it('every Code node and both outputs of every If node, but for the outputs listed with their reason', async () => {
    const seen = new Set<string>();
    const failed = await checkOffline('all', [response, rollback], (workflow, step) => {
      const point = pointOf(workflow, step);
      if (point !== null) seen.add(point);
    });
    expect(failed).toEqual([]);
    const missed = [...pointsOf(response), ...pointsOf(rollback)].filter((p) => !seen.has(p));
    expect(missed.sort()).toEqual(Object.keys(NOT_BY_THE_CHECKER).sort());
  });

  it('control: the points of a workflow are its Code nodes and both outputs of its If nodes', () => {
    expect(pointsOf(rollback)).toEqual([
      `${rollback.name}: Note the time`,
      `${rollback.name}: Absent? (true)`,
      `${rollback.name}: Absent? (false)`,
      `${rollback.name}: Build rollback record`,
    ]);
  });
});

const ALERT = alertPayload(
  { eventId: 'evt-cover', sourceIp: LAB_ADDRESS, user: LAB_USER },
  { confidence: 92 },
);
const APPROVE = { headers: {}, body: { decision: 'approve', approver: 'approver-cover' } };

/** A run of `workflow` on `api`, approved, `other` acting after each request; the points it went through. */
async function runOn(
  api: MockApi,
  workflow: N8nExport,
  body: unknown,
  other: (method: string, path: string) => Promise<unknown> = async () => {},
): Promise<{ run: SimRun; points: string[] }> {
  const points: string[] = [];
  const io = mockApiIo(api, {
    resume: async () => APPROVE,
    afterRequest: (call, path) => other(call.method, path).then(() => {}),
    onNode: (step) => {
      const point = pointOf(workflow, step);
      if (point !== null) points.push(point);
    },
  });
  const run = await runWorkflow(workflow, { headers: {}, body }, io);
  return { run, points };
}

const caseMode = (api: MockApi, mode: string) => ask(api, 'POST', '/control/case-mode', { mode });
const afterVerifyBlock = (method: string, path: string) =>
  method === 'GET' && path === `/blocklist/${LAB_ADDRESS}`;

describe('the outputs the checker leaves, reached otherwise', () => {
  it(`a connector that stays down: Healthy? false, ${HEALTH_POLL_TRIES} polls, then Polls left? false`, async () => {
    const api = freshMockApi();
    const { run, points } = await runOn(api, response, ALERT, async (method, path) => {
      if (afterVerifyBlock(method, path)) await caseMode(api, 'failed');
    });
    expect(run.error).toMatch(/did not recover within 30 polls/);
    expect(points.filter((p) => p === `${R}: Healthy? (false)`)).toHaveLength(HEALTH_POLL_TRIES);
    expect(points.filter((p) => p === `${R}: Polls left? (true)`)).toHaveLength(HEALTH_POLL_TRIES - 1);
    expect(points.at(-1)).toBe(`${R}: Polls left? (false)`);
  });

  it('a write that fails again after the connector said healthy: Connector failure? false', async () => {
    const api = freshMockApi();
    const { run, points } = await runOn(api, response, ALERT, async (method, path) => {
      if (afterVerifyBlock(method, path) || path === '/health') await caseMode(api, 'fail_next_write');
    });
    expect(run.error).toMatch(/^Case write failed twice: /);
    expect(points.slice(-3)).toEqual([
      `${R}: Connector failure? (true)`,
      `${R}: Healthy? (true)`,
      `${R}: Connector failure? (false)`,
    ]);
  });

  it('an address blocked again between the DELETE and its check: Absent? false', async () => {
    const api = freshMockApi();
    expect((await runOn(api, response, ALERT)).run.status).toBe('success');
    const again = { ip: LAB_ADDRESS, event_id: 'evt-other', expires_minutes: 10 };
    const { run, points } = await runOn(api, rollback, { event_id: 'evt-cover' }, async (method) => {
      if (method === 'DELETE') await ask(api, 'POST', '/blocklist', again);
    });
    expect(run.error).toMatch(/^Still blocked: /);
    expect(points).toEqual([`${rollback.name}: Note the time`, `${rollback.name}: Absent? (false)`]);
  });
});
